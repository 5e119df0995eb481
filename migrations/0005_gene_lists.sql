-- A researcher's gene lists: the current gene ids a list resolved to on its
-- site (in the order the upload first named them), and, kept with it so the
-- researcher can always see them, the identifiers that were mapped from a
-- previous or transcript id and those that named no gene. A list belongs to
-- its user alone and outlives any conversation.
CREATE TABLE gene_lists (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    site_id    text NOT NULL,
    name       text NOT NULL,
    genes      text[] NOT NULL,
    unknown    text[] NOT NULL DEFAULT '{}',
    mapped     jsonb NOT NULL DEFAULT '[]',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT gene_lists_name_nonempty CHECK (name <> '')
);
CREATE INDEX gene_lists_user_idx ON gene_lists (user_id, created_at);

-- A conversation's control lists: known genes its strategy should find
-- (positives) and should not (negatives). Deleting a list leaves the
-- conversation without that control rather than failing.
CREATE TABLE conversation_controls (
    conversation_id uuid PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
    positives       uuid REFERENCES gene_lists (id) ON DELETE SET NULL,
    negatives       uuid REFERENCES gene_lists (id) ON DELETE SET NULL,
    updated_at      timestamptz NOT NULL DEFAULT now()
);

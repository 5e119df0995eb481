-- Conversations are found again by full-text search (English) over their
-- title, the text of their user and assistant messages, and the names of
-- their strategies' steps. Each is a stored generated tsvector column with a
-- GIN index: PostgreSQL computes it in the statement that writes the row, so
-- a message or a step is searchable in the transaction that commits it, with
-- nothing else to keep in step, and a search ranks stored vectors instead of
-- parsing every matching text again. Tool digests and summaries are not
-- searched (their column is NULL).
ALTER TABLE conversations ADD COLUMN title_search tsvector
    GENERATED ALWAYS AS (to_tsvector('english', title)) STORED;
CREATE INDEX conversations_title_search_idx ON conversations USING gin (title_search);

ALTER TABLE messages ADD COLUMN text_search tsvector
    GENERATED ALWAYS AS (CASE WHEN role IN ('user', 'assistant') THEN to_tsvector('english', content) END) STORED;
CREATE INDEX messages_text_search_idx ON messages USING gin (text_search);

ALTER TABLE strategies ADD COLUMN step_names_search tsvector
    GENERATED ALWAYS AS (to_tsvector('english', jsonb_path_query_array(graph, '$.steps[*].displayName'))) STORED;
CREATE INDEX strategies_step_names_search_idx ON strategies USING gin (step_names_search);

-- A read-only link to a conversation as it was when it was shared: the page
-- folds the event log up to event_seq only, under the title it had then. Only the SHA-256 of the link's
-- token is kept (the token is 256 random bits); a revoked link stays listed
-- with revoked_at set and opens nothing. A public link opens without an
-- account; any other needs a signed-in one.
CREATE TABLE conversation_shares (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    token_hash      bytea NOT NULL,
    public          boolean NOT NULL DEFAULT false,
    event_seq       bigint NOT NULL,
    title           text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    revoked_at      timestamptz,
    CONSTRAINT conversation_shares_hash_key UNIQUE (token_hash),
    CONSTRAINT conversation_shares_seq_nonnegative CHECK (event_seq >= 0)
);
CREATE INDEX conversation_shares_conversation_idx ON conversation_shares (conversation_id, created_at);

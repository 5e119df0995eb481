-- The live sites' catalog documents (service root, record types, search
-- lists, search details with their vocabularies), as WDK sent them, so a
-- restarted or second server does not fetch them again. They are the same
-- for every registered user: nothing here belongs to a user, and no key is
-- stored. doc_key is the document's URL, so a site re-pointed at another
-- WDK service never reads the first one's documents.

CREATE TABLE catalog_docs (
    site_id       text NOT NULL,
    doc_key       text NOT NULL,
    body          bytea NOT NULL,
    etag          text NOT NULL DEFAULT '',
    last_modified text NOT NULL DEFAULT '',
    fetched_at    timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL,
    PRIMARY KEY (site_id, doc_key)
);

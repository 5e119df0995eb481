-- A server process owns the turns it runs under its owner name (turns.owner,
-- and the River client id in river_job.attempted_by). The owner is alive
-- while a database session carries its name (application_name) or while its
-- lease here has not expired: the process renews the lease through its owner
-- session, so a session that drops for a moment (a restart, a terminated
-- backend, a proxy's idle timeout) does not make its running turns look like
-- a dead process's before the process has opened a new session under the
-- same name.
CREATE TABLE owner_leases (
    owner      text PRIMARY KEY,
    expires_at timestamptz NOT NULL
);

-- The event log's writer retries a batch whose transaction failed with a
-- connection error (a restart, a stall past its timeout). Such a failure can
-- come after the commit, so each batch the writer sends names itself here in
-- its own transaction, with each conversation's sequence base: a retry
-- first looks for its batch, and one that committed is read back instead of
-- being written twice. Rows older than an hour are pruned as batches go.
CREATE TABLE event_batches (
    id           uuid PRIMARY KEY,
    groups       jsonb NOT NULL,
    committed_at timestamptz NOT NULL DEFAULT now()
);

-- Strategist schema. Every row of user data is reachable from users.id;
-- queries filter by owner through conversations.user_id.

CREATE TABLE users (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    email         text NOT NULL,
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT users_email_key UNIQUE (email),
    CONSTRAINT users_email_lower CHECK (email = lower(email) AND email <> '')
);

CREATE TABLE api_tokens (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text NOT NULL DEFAULT '',
    token_hash   bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz,
    CONSTRAINT api_tokens_hash_key UNIQUE (token_hash)
);
CREATE INDEX api_tokens_user_idx ON api_tokens (user_id);

CREATE TABLE web_sessions (
    token_hash   bytea PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    csrf_token   text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);
CREATE INDEX web_sessions_user_idx ON web_sessions (user_id);
CREATE INDEX web_sessions_expires_idx ON web_sessions (expires_at);

-- A registered VEuPathDB user's token, per Strategist user and site,
-- encrypted by the server (AES-GCM) before it reaches the database.
CREATE TABLE wdk_credentials (
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    site_id     text NOT NULL,
    ciphertext  bytea NOT NULL,
    wdk_user_id bigint,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, site_id)
);

CREATE TABLE conversations (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    site_id        text NOT NULL,
    title          text NOT NULL DEFAULT '',
    mode           text NOT NULL DEFAULT 'plan',
    strategy_id    uuid,
    model          text NOT NULL DEFAULT '',
    -- last_event_seq allocates the per-conversation event sequence.
    last_event_seq bigint NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT conversations_mode_check CHECK (mode IN ('plan', 'execute')),
    CONSTRAINT conversations_title_len CHECK (char_length(title) <= 200)
);
CREATE INDEX conversations_user_updated_idx ON conversations (user_id, updated_at DESC);

CREATE TABLE turns (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    mode            text NOT NULL,
    model           text NOT NULL DEFAULT '',
    status          text NOT NULL DEFAULT 'running',
    error           text NOT NULL DEFAULT '',
    usage           jsonb NOT NULL DEFAULT '{}',
    -- owner names the server process running the turn, for cancel routing.
    owner           text NOT NULL DEFAULT '',
    started_at      timestamptz NOT NULL DEFAULT now(),
    ended_at        timestamptz,
    CONSTRAINT turns_mode_check CHECK (mode IN ('plan', 'execute')),
    CONSTRAINT turns_status_check CHECK (status IN ('running', 'completed', 'failed', 'cancelled', 'interrupted'))
);
CREATE INDEX turns_conversation_status_idx ON turns (conversation_id, status);
-- At most one running turn per conversation: a second start is a conflict.
CREATE UNIQUE INDEX turns_one_running_idx ON turns (conversation_id) WHERE status = 'running';

CREATE TABLE messages (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    -- ord orders messages; created_at alone ties inside a transaction.
    ord             bigint GENERATED ALWAYS AS IDENTITY,
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         uuid REFERENCES turns (id) ON DELETE SET NULL,
    role            text NOT NULL,
    content         text NOT NULL DEFAULT '',
    -- data holds structured parts: tool calls, tool result digests, engine
    -- encodings that must be sent back unchanged.
    data            jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT messages_role_check CHECK (role IN ('user', 'assistant', 'tool', 'summary'))
);
CREATE INDEX messages_conversation_ord_idx ON messages (conversation_id, ord);

CREATE TABLE events (
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    seq             bigint NOT NULL,
    turn_id         uuid,
    type            text NOT NULL,
    payload         jsonb NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (conversation_id, seq),
    CONSTRAINT events_seq_positive CHECK (seq > 0)
);
CREATE INDEX events_turn_idx ON events (turn_id);

CREATE TABLE artifacts (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         uuid REFERENCES turns (id) ON DELETE SET NULL,
    kind            text NOT NULL,
    title           text NOT NULL,
    body            jsonb NOT NULL,
    version         integer NOT NULL DEFAULT 1,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT artifacts_kind_check CHECK (kind IN ('planning', 'delegation_draft')),
    CONSTRAINT artifacts_version_positive CHECK (version > 0)
);
CREATE INDEX artifacts_conversation_idx ON artifacts (conversation_id, created_at);

CREATE TABLE artifact_versions (
    artifact_id uuid NOT NULL REFERENCES artifacts (id) ON DELETE CASCADE,
    version     integer NOT NULL,
    title       text NOT NULL,
    body        jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (artifact_id, version)
);

CREATE TABLE strategies (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    site_id         text NOT NULL,
    record_type     text NOT NULL,
    name            text NOT NULL DEFAULT '',
    graph           jsonb NOT NULL,
    version         integer NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT strategies_version_nonnegative CHECK (version >= 0)
);
CREATE INDEX strategies_conversation_idx ON strategies (conversation_id);

ALTER TABLE conversations
    ADD CONSTRAINT conversations_strategy_fk FOREIGN KEY (strategy_id)
    REFERENCES strategies (id) ON DELETE SET NULL;

CREATE TABLE strategy_versions (
    strategy_id uuid NOT NULL REFERENCES strategies (id) ON DELETE CASCADE,
    version     integer NOT NULL,
    graph       jsonb NOT NULL,
    change      jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (strategy_id, version)
);

CREATE TABLE handoffs (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    conversation_id   uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    artifact_id       uuid REFERENCES artifacts (id) ON DELETE SET NULL,
    requested_turn_id uuid REFERENCES turns (id) ON DELETE SET NULL,
    execute_turn_id   uuid REFERENCES turns (id) ON DELETE SET NULL,
    goal              text NOT NULL,
    plan              jsonb NOT NULL,
    status            text NOT NULL DEFAULT 'pending',
    created_at        timestamptz NOT NULL DEFAULT now(),
    decided_at        timestamptz,
    CONSTRAINT handoffs_status_check CHECK (status IN ('pending', 'accepted', 'superseded'))
);
CREATE INDEX handoffs_conversation_idx ON handoffs (conversation_id, status);

CREATE TABLE delegations (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         uuid REFERENCES turns (id) ON DELETE SET NULL,
    goal            text NOT NULL,
    plan            jsonb NOT NULL,
    status          text NOT NULL DEFAULT 'running',
    usage           jsonb NOT NULL DEFAULT '{}',
    started_at      timestamptz NOT NULL DEFAULT now(),
    ended_at        timestamptz,
    CONSTRAINT delegations_status_check CHECK (status IN ('running', 'completed', 'failed', 'cancelled', 'interrupted'))
);
CREATE INDEX delegations_conversation_idx ON delegations (conversation_id, started_at);

CREATE TABLE delegation_nodes (
    delegation_id uuid NOT NULL REFERENCES delegations (id) ON DELETE CASCADE,
    node_id       text NOT NULL,
    position      integer NOT NULL,
    kind          text NOT NULL,
    label         text NOT NULL,
    depends_on    text[] NOT NULL DEFAULT '{}',
    operator      text NOT NULL DEFAULT '',
    status        text NOT NULL DEFAULT 'queued',
    attempt       integer NOT NULL DEFAULT 0,
    root_step_id  text NOT NULL DEFAULT '',
    error         text NOT NULL DEFAULT '',
    usage         jsonb NOT NULL DEFAULT '{}',
    started_at    timestamptz,
    ended_at      timestamptz,
    PRIMARY KEY (delegation_id, node_id),
    CONSTRAINT delegation_nodes_kind_check CHECK (kind IN ('task', 'combine')),
    CONSTRAINT delegation_nodes_status_check CHECK (status IN ('queued', 'running', 'done', 'failed', 'skipped', 'cancelled', 'timeout'))
);

-- The event store. Every table is keyed by game_id first and nothing on the
-- append path uses a global sequence, so the schema can be distributed by
-- game_id (e.g. Citus `create_distributed_table('events', 'game_id')`) as is.

CREATE TABLE games (
    game_id        uuid        PRIMARY KEY,
    game           text        NOT NULL,
    options        jsonb       NOT NULL,
    -- The RNG seed is umpire-only information; it never leaves through a
    -- seat's or a spectator's read.
    seed           bigint      NOT NULL,
    rules_version  integer     NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE events (
    game_id        uuid        NOT NULL REFERENCES games (game_id),
    seq            bigint      NOT NULL CHECK (seq >= 1),
    event_type     text        NOT NULL,
    payload        jsonb       NOT NULL,
    -- `system` (setup), `umpire` or `seat:<name>`.
    actor          text        NOT NULL,
    -- The action that caused this event; null for setup events.
    action         jsonb,
    -- The version the action was decided against: every event of one append
    -- shares it, so an audit can re-decide each action exactly once.
    decided_at     bigint      NOT NULL CHECK (decided_at >= 0 AND decided_at < seq),
    rules_version  integer     NOT NULL,
    recorded_at    timestamptz NOT NULL,
    prev_hash      text        NOT NULL,
    hash           text        NOT NULL,
    PRIMARY KEY (game_id, seq)
);

-- The log is append-only: the database itself refuses to change history.
CREATE FUNCTION events_are_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER events_no_update_or_delete
    BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_are_append_only();

CREATE TRIGGER events_no_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

-- Actions that were refused, kept for audit, outside the event stream.
CREATE TABLE rejected_actions (
    game_id        uuid        NOT NULL REFERENCES games (game_id),
    rejection_id   uuid        NOT NULL,
    at_version     bigint      NOT NULL,
    actor          text        NOT NULL,
    action         jsonb       NOT NULL,
    code           text        NOT NULL,
    message        text        NOT NULL,
    rule           text,
    rules_version  integer     NOT NULL,
    recorded_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, rejection_id)
);
CREATE INDEX rejected_actions_by_version ON rejected_actions (game_id, at_version);

-- Seat and umpire tokens, stored as SHA-256 hashes only.
CREATE TABLE tokens (
    game_id        uuid        NOT NULL REFERENCES games (game_id),
    token_hash     text        NOT NULL,
    -- `umpire` or `seat`
    role           text        NOT NULL CHECK (role IN ('umpire', 'seat')),
    seat           text,
    PRIMARY KEY (game_id, token_hash)
);

-- Idempotent submissions: the first result for a key is the result forever.
CREATE TABLE idempotency_keys (
    game_id        uuid        NOT NULL REFERENCES games (game_id),
    idempotency_key text       NOT NULL,
    request_hash   text        NOT NULL,
    response       jsonb       NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, idempotency_key)
);

-- Privileges: the service runs as umpire_app where it can (see
-- storage/src/pool.rs), which may read and insert events but never change them.
REVOKE UPDATE, DELETE, TRUNCATE ON events FROM PUBLIC;
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'umpire_app') THEN
        IF (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user) THEN
            CREATE ROLE umpire_app NOLOGIN;
        END IF;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'umpire_app') THEN
        GRANT SELECT, INSERT ON events, games, rejected_actions, tokens, idempotency_keys TO umpire_app;
        EXECUTE format('GRANT umpire_app TO %I', current_user);
    END IF;
END;
$$;

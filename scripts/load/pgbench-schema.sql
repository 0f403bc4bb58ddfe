-- The pgbench baseline's table: the same columns, types and primary key as
-- the service's `events` table (migrations/V1__event_store.sql), without the
-- append-only triggers, in a database of its own.
CREATE TABLE bench_events (
    game_id        uuid        NOT NULL,
    seq            bigint      NOT NULL,
    event_type     text        NOT NULL,
    payload        jsonb       NOT NULL,
    actor          text        NOT NULL,
    action         jsonb,
    decided_at     bigint      NOT NULL,
    rules_version  integer     NOT NULL,
    recorded_at    timestamptz NOT NULL,
    prev_hash      text        NOT NULL,
    hash           text        NOT NULL,
    PRIMARY KEY (game_id, seq)
);
-- The stack-ceiling baseline (api/examples/stack_ceiling.rs) connects through
-- the service's pool, which acts as `umpire_app`.
DO $$ BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'umpire_app') THEN
    GRANT INSERT ON bench_events TO umpire_app;
  END IF;
END $$;

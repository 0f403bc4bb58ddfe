-- Snapshots of a fold: a game's state and clock at every 256th version, as
-- the service's fold keeps them in memory (service/src/fold.rs
-- `CHECKPOINT_EVERY`), so that a read at a past version of a game that is
-- not in memory folds at most 255 events from the snapshot before it
-- instead of the whole log (service/src/snapshots.rs). A derived table,
-- never the log: written when a fold passes a checkpoint, read only by
-- such reads, and any row of it could be dropped and written again from
-- the log. Insert-only like the rest.
--
-- `format` says what wrote `state` (the game and
-- `umpire_domain::erased::SNAPSHOT_FORMAT`): a snapshot of another format
-- is never resumed. `view_sha256` is the SHA-256 of the umpire's view of
-- the state when it was kept: a snapshot whose state, resumed, shows the
-- umpire anything else is not used.
CREATE TABLE fold_snapshots (
    game_id     uuid NOT NULL REFERENCES games (game_id),
    format      text NOT NULL,
    version     bigint NOT NULL CHECK (version >= 1),
    state       jsonb NOT NULL,
    clock       jsonb,
    view_sha256 text NOT NULL,
    PRIMARY KEY (game_id, format, version)
);

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'umpire_app') THEN
        GRANT SELECT, INSERT ON fold_snapshots TO umpire_app;
    END IF;
END;
$$;

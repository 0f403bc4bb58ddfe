-- The list of games (issue 33, `GET /v1/games`): newest first, by game and
-- by whether a game is finished, a page at a time.
--
-- Whether a game is finished is folded from its log by its rules; nothing
-- in SQL can tell. So the service says so when it appends the events that
-- end a game, in the same statement (storage/src/group_commit.rs
-- INSERT_APPENDS), and when it imports a finished game, in the import's
-- transaction (storage/src/bulk.rs): one row here per finished game,
-- inserted once and never changed (a finished game never goes on; every
-- game refuses an action after its end). Nothing in the log is updated or
-- deleted; this table is derived, like clock_checks (V7).
--
-- `game` and `created_at` are the game's own (games never change), copied so
-- that finished games are listed from this table's index alone. `winners`
-- is the score's final winners (seat names, empty for a draw or a solo
-- game), JSON null when not recorded (games that ended before this
-- migration, below); `version` is the log's version when the game ended.
CREATE TABLE game_results (
    game_id     uuid        PRIMARY KEY,
    game        text        NOT NULL,
    created_at  timestamptz NOT NULL,
    version     bigint      NOT NULL CHECK (version >= 1),
    winners     jsonb       NOT NULL,
    finished_at timestamptz NOT NULL
);

-- The listing's keyset, newest first (an index is read backwards as well as
-- forwards): every game, every game of one kind, and the same for finished
-- games. These are the only indexes across games; each one's rows are still
-- one per game, so a schema distributed by game_id keeps them per shard.
CREATE INDEX games_listed ON games (created_at, game_id);
CREATE INDEX games_listed_by_game ON games (game, created_at, game_id);
CREATE INDEX game_results_listed ON game_results (created_at, game_id);
CREATE INDEX game_results_listed_by_game ON game_results (game, created_at, game_id);

-- Games that ended before this migration: found once, here, by the events
-- that end each of the games registered today (their rule books' ends;
-- a later game is told by the service, never by SQL), winners not
-- recorded. One pass over the stored events.
INSERT INTO game_results (game_id, game, created_at, version, winners, finished_at)
SELECT g.game_id, g.game, g.created_at, ended.seq, 'null'::jsonb, ended.recorded_at
FROM games g
JOIN LATERAL (
    SELECT e.seq, e.recorded_at
    FROM events e
    WHERE e.game_id = g.game_id
      AND CASE g.game
            WHEN 'arboretum' THEN e.event_type = 'game_ended'
            WHEN 'treeblox' THEN e.event_type = 'game_ended'
            WHEN 'draft_cider' THEN e.event_type = 'game_finished'
            -- One candidate (or none) ends the game; several wait for the
            -- umpire's choice.
            WHEN 'flower_fields' THEN e.event_type = 'candidate_chosen'
                OR e.event_type = 'result_declared'
                   AND jsonb_array_length(e.payload -> 'candidates') <= 1
            ELSE false
          END
    ORDER BY e.seq
    LIMIT 1
) AS ended ON true;

CREATE TRIGGER game_results_no_update_or_delete
    BEFORE UPDATE OR DELETE ON game_results
    FOR EACH ROW EXECUTE FUNCTION games_are_immutable();

CREATE TRIGGER game_results_no_truncate
    BEFORE TRUNCATE ON game_results
    FOR EACH STATEMENT EXECUTE FUNCTION games_are_immutable();

REVOKE UPDATE, DELETE, TRUNCATE ON game_results FROM PUBLIC;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'umpire_app') THEN
        GRANT SELECT, INSERT ON game_results TO umpire_app;
    END IF;
END;
$$;

-- The clock (issue 32): when each clocked game's clock should next be
-- looked at. A derived table, never the log: who is due and since when is
-- folded from the log (domain/src/clock.rs); this only says when an
-- instance should fold it again, so that no instance keeps every clock in
-- memory and a restart loses nothing.
--
-- `version` is the log's version the row was last marked or computed at;
-- `check_at` is when to look (NULL: nothing can fall due until the next
-- append: paused, finished, or no seat on the clock).
CREATE TABLE clock_checks (
    game_id  uuid PRIMARY KEY,
    version  bigint NOT NULL,
    check_at timestamptz
);

CREATE INDEX clock_checks_due ON clock_checks (check_at) WHERE check_at IS NOT NULL;

-- Marked in the statement that appends, so an append that commits is never
-- left unlooked-at, whichever instance made it and whether it lived to
-- compute the new deadline: a game gets its row with its clock (the setup's
-- `clock_set`), and every later append to it asks for a look now. An
-- instance then folds the game and sets `check_at` to its next deadline,
-- only if no append came in between (the version still matches).
CREATE FUNCTION mark_clock_checks() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO clock_checks (game_id, version, check_at)
    SELECT game_id, max(seq), now()
    FROM appended
    WHERE game_id IN (SELECT game_id FROM appended WHERE event_type = 'clock_set')
    GROUP BY game_id
    ON CONFLICT (game_id) DO NOTHING;
    UPDATE clock_checks
    SET version = latest.version, check_at = now()
    FROM (SELECT game_id, max(seq) AS version FROM appended GROUP BY game_id) AS latest
    WHERE clock_checks.game_id = latest.game_id AND clock_checks.version < latest.version;
    RETURN NULL;
END
$$;

CREATE TRIGGER events_mark_clock_checks
    AFTER INSERT ON events
    REFERENCING NEW TABLE AS appended
    FOR EACH STATEMENT EXECUTE FUNCTION mark_clock_checks();

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'umpire_app') THEN
        GRANT SELECT, INSERT, UPDATE ON clock_checks TO umpire_app;
    END IF;
END;
$$;

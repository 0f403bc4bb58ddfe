-- The clock's marks (V7) made in one pass over the appended rows.
--
-- V7 found the clocked games of a statement with a semi-join of the
-- transition table with itself (`WHERE game_id IN (SELECT game_id FROM
-- appended WHERE event_type = 'clock_set')`). PL/pgSQL keeps a statement's
-- plan for its session, and the service's connections use generic plans
-- (`plan_cache_mode`): planned on a connection's first append of a handful
-- of rows, the semi-join became a nested loop, and the same connection's
-- next import (a COPY of 16,000 events, its transition table spilled to a
-- temporary file) read the table once per row: past the 10 s statement
-- timeout, so the batch failed and its games were stored one by one, and a
-- single long log could not be imported at all. Grouped once, with the
-- clock found by an aggregate, the work grows with the rows whatever the
-- plan.
CREATE OR REPLACE FUNCTION mark_clock_checks() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO clock_checks (game_id, version, check_at)
    SELECT game_id, max(seq), now()
    FROM appended
    GROUP BY game_id
    HAVING bool_or(event_type = 'clock_set')
    ON CONFLICT (game_id) DO NOTHING;
    UPDATE clock_checks
    SET version = latest.version, check_at = now()
    FROM (SELECT game_id, max(seq) AS version FROM appended GROUP BY game_id) AS latest
    WHERE clock_checks.game_id = latest.game_id AND clock_checks.version < latest.version;
    RETURN NULL;
END
$$;

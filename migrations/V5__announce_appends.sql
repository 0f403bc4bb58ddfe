-- Live streams (issue 16): every statement that appends events announces, on
-- the channel `umpire_appends`, each game it extended and the game's version
-- after it, as `<game id> <version>`. Nothing else travels: a notification
-- only tells a listener "read the log after N", so no hidden information
-- can leak through it, and the log stays the one source of truth.
--
-- NOTIFY is transactional: the announcement leaves on commit, never for a
-- rolled-back append, and after the rows are visible to other sessions.
-- One notification per game per statement keeps a group-commit batch of
-- many appends to as many messages as games, not events.
CREATE FUNCTION announce_appends() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('umpire_appends', game_id::text || ' ' || max(seq)::text)
    FROM appended
    GROUP BY game_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER events_announce_appends
    AFTER INSERT ON events
    REFERENCING NEW TABLE AS appended
    FOR EACH STATEMENT EXECUTE FUNCTION announce_appends();

-- `umpire serve` with the service role's URL (not the owner's) checks that
-- the schema is current instead of migrating, which that role may not do.
GRANT SELECT ON refinery_schema_history TO umpire_app;

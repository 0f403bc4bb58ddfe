-- The foreign key from events to games made PostgreSQL lock the game's row
-- (FOR KEY SHARE) for every inserted event: a tuple lock and a WAL record
-- per event, about a fifth of the database's time per action under load
-- (docs/load.md). The same guarantee, no event without its game, now comes
-- from two things instead:
--   * a game's row never changes or goes away (the triggers below), and
--   * the one statement that appends events inserts nothing unless the game
--     exists (storage/src/store.rs, INSERT_EVENTS), reported as an unknown
--     game.
ALTER TABLE events DROP CONSTRAINT events_game_id_fkey;

CREATE FUNCTION games_are_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'games are immutable: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER games_no_update_or_delete
    BEFORE UPDATE OR DELETE ON games
    FOR EACH ROW EXECUTE FUNCTION games_are_immutable();

CREATE TRIGGER games_no_truncate
    BEFORE TRUNCATE ON games
    FOR EACH STATEMENT EXECUTE FUNCTION games_are_immutable();

REVOKE UPDATE, DELETE, TRUNCATE ON games FROM PUBLIC;

-- Refused actions cannot fill the disk (issue 15). A refusal identical to one
-- already kept — same game, actor, version, action and code — is counted in
-- `repeats` instead of stored again, and at most a fixed number of distinct
-- refusals per (game, actor, version) are kept; further ones are counted on
-- one overflow row (code `refusals_not_kept`, action null). The cap lives in
-- storage/src/store.rs (REFUSALS_KEPT_PER_VERSION).
--
-- rejected_actions is an audit side table, not the event log: raising a
-- counter on it changes no event and no hash. The service may update that one
-- column and nothing else (the grant below); events and games stay under
-- their append-only triggers.
ALTER TABLE rejected_actions ADD COLUMN repeats bigint NOT NULL DEFAULT 1 CHECK (repeats >= 1);

-- The identity of a refusal. The action is compared by the MD5 of its jsonb
-- text (jsonb prints keys sorted and whitespace normalised, so equal JSON
-- gives equal text): an action of up to 64 KiB would not fit a btree entry.
CREATE FUNCTION refusal_action_digest(action jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT md5(action::text) $$;

-- Rows stored before this migration may repeat one another: fold them into
-- the oldest copy before the unique index is built.
WITH ranked AS (
    SELECT game_id, rejection_id,
           row_number() OVER same AS copy,
           sum(repeats) OVER (PARTITION BY game_id, actor, at_version, code,
                                           refusal_action_digest(action)) AS total
    FROM rejected_actions
    WINDOW same AS (PARTITION BY game_id, actor, at_version, code, refusal_action_digest(action)
                    ORDER BY recorded_at, rejection_id)
), kept AS (
    UPDATE rejected_actions r SET repeats = ranked.total
    FROM ranked
    WHERE ranked.copy = 1 AND ranked.total > 1
      AND r.game_id = ranked.game_id AND r.rejection_id = ranked.rejection_id
)
DELETE FROM rejected_actions r
USING ranked
WHERE ranked.copy > 1 AND r.game_id = ranked.game_id AND r.rejection_id = ranked.rejection_id;

CREATE UNIQUE INDEX rejected_actions_identity
    ON rejected_actions (game_id, actor, at_version, code, refusal_action_digest(action));

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'umpire_app') THEN
        GRANT UPDATE (repeats) ON rejected_actions TO umpire_app;
        GRANT EXECUTE ON FUNCTION refusal_action_digest(jsonb) TO umpire_app;
    END IF;
END;
$$;

-- The audit and the export read a game's refusals in pages, in audit order
-- (storage/src/store.rs, REJECTIONS_ORDER): an index in that order lets each
-- page start where the last ended instead of sorting the game's refusals
-- again. It covers what the index by version did.
CREATE INDEX rejected_actions_audit_order
    ON rejected_actions (game_id, at_version, recorded_at, rejection_id);
DROP INDEX rejected_actions_by_version;

-- Idempotency keys belong to the actor who sent them (issue 30). Keyed by
-- (game, key) alone, one seat's key refused another seat's legal action
-- with the same key (`idempotency_key_reused`: that action was lost) and
-- told it which keys the first seat had used. A key is now looked up and
-- stored under (game, actor, key); the actor is the label events and
-- refusals record (`umpire` or `seat:<name>`; see umpire_domain::record).
ALTER TABLE idempotency_keys ADD COLUMN actor text;

-- Rows stored before this migration: every event an accepted action makes
-- records the action's actor, and the stored answer names the first of those
-- events (`response.first_seq`), so the actor is read from that event.
UPDATE idempotency_keys k
SET actor = e.actor
FROM events e
WHERE e.game_id = k.game_id
  AND e.seq = (k.response ->> 'first_seq')::bigint
  AND (k.response ->> 'first_seq')::bigint <= (k.response ->> 'version')::bigint;

-- An answer that names no event (an accepted action that made none; no game
-- decides that today) cannot be traced to its actor. Such a row is kept,
-- under a label no actor has, rather than guessed: giving it to a wrong actor
-- would answer that actor's new request with someone else's old answer,
-- while under no actor its owner's retry is decided afresh, which for an
-- action that changed nothing changes nothing either.
UPDATE idempotency_keys SET actor = 'unattributed' WHERE actor IS NULL;

ALTER TABLE idempotency_keys ALTER COLUMN actor SET NOT NULL;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (game_id, actor, idempotency_key);

-- pgbench script: one single-row INSERT of an event-sized row (a 290-byte
-- jsonb payload, a jsonb action and two SHA-256 hex hashes), one transaction,
-- as the service's append does for a one-event action.
\set seq random(1, 2000000000)
INSERT INTO bench_events (game_id, seq, event_type, payload, actor, action, decided_at, rules_version, recorded_at, prev_hash, hash) VALUES (gen_random_uuid(), :seq, 'card_picked', '{"type":"card_picked","seat":1,"card":"gold h4 s1","batch":"fortepiano","hand":["red h2 s3","green h1 s2","gold h3 s1","red h4 s4","green h2 s1","gold h1 s2","red h3 s1","green h4 s3"],"round":3,"pick":7,"orchard":{"fortepiano":["gold h4 s1","red h2 s3"],"bad":["green h1 s1","red h1 s2"]}}', 'seat:1', '{"type":"pick","card":"gold h4 s1","batch":"fortepiano"}', :seq - 1, 1, now(), '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', '60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752');

-- wrk script for the stack-ceiling baseline (api/examples/stack_ceiling.rs):
-- every request POSTs the same event-sized row pgbench inserts
-- (pgbench-insert-event.sql); prints report.lua's RESULT line.
dofile(os.getenv("LOAD_DIR") .. "/report.lua")

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [[{"event_type":"card_picked","actor":"seat:1","payload":{"type":"card_picked","seat":1,"card":"gold h4 s1","batch":"fortepiano","hand":["red h2 s3","green h1 s2","gold h3 s1","red h4 s4","green h2 s1","gold h1 s2","red h3 s1","green h4 s3"],"round":3,"pick":7,"orchard":{"fortepiano":["gold h4 s1","red h2 s3"],"bad":["green h1 s1","red h1 s2"]}},"action":{"type":"pick","card":"gold h4 s1","batch":"fortepiano"},"prev_hash":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","hash":"60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"}]]

-- The reissues of the seats' tokens up to a snapshot's version (the game
-- aggregate's `seat_tokens`: a JSON list of [seat, version]), so that a
-- game resumed from a snapshot is the whole aggregate: its match, its
-- clock and where in its log each seat's token was reissued. A row
-- written before this column has none and is passed by (the log is folded
-- instead), as a row of another format is: the table is derived.
ALTER TABLE fold_snapshots ADD COLUMN seat_tokens jsonb;

-- Seats by invitation (issue 33): one-time invitation codes exchanged for a
-- seat's token, and the umpire's reissue of a seat's token, which revokes
-- every earlier one. Insert-only, like the log: no row here is ever updated
-- or deleted. Every key leads with game_id (the code carries its game id,
-- so a redemption touches one game).

-- A token's generation: 0 for the tokens a game is created (or imported)
-- with; a token given for an invitation has that invitation's generation.
-- A seat's token authorises only while its generation is the seat's
-- newest (`seat_generations`), so a reissue revokes every earlier token of
-- the seat at once, with one insert.
ALTER TABLE tokens ADD COLUMN generation bigint NOT NULL DEFAULT 0;

-- Each reissue of a seat's token: its generation is the version of the
-- `seat_token_reissued` event the log records it by, written in the same
-- transaction, so the log and this table never disagree. A seat without a
-- row is at generation 0.
CREATE TABLE seat_generations (
    game_id     uuid        NOT NULL REFERENCES games (game_id),
    seat        text        NOT NULL,
    generation  bigint      NOT NULL CHECK (generation >= 1),
    reissued_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seat, generation)
);

-- One-time invitation codes, SHA-256 hashes only (as tokens).
CREATE TABLE invitations (
    game_id    uuid        NOT NULL REFERENCES games (game_id),
    code_hash  text        NOT NULL,
    seat       text        NOT NULL,
    generation bigint      NOT NULL CHECK (generation >= 0),
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, code_hash)
);

-- A redemption: the key makes the second of two concurrent redemptions of
-- one code wait for the first and then find it taken.
CREATE TABLE redemptions (
    game_id     uuid        NOT NULL,
    code_hash   text        NOT NULL,
    redeemed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, code_hash),
    FOREIGN KEY (game_id, code_hash) REFERENCES invitations (game_id, code_hash)
);

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'umpire_app') THEN
        GRANT SELECT, INSERT ON seat_generations, invitations, redemptions TO umpire_app;
    END IF;
END;
$$;

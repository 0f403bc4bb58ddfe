-- Seats kept by a browser (issue 47): a page session is a secret the
-- service keeps in a seat's browser as an HttpOnly cookie, scoped to the
-- game's API paths, so that the seat survives a new tab and a restart
-- without any token the page's script could read. Insert-only, like the
-- rest: a session is ended by a row in `page_session_ends`, never by an
-- update or a delete. Every key leads with game_id.

-- A session gives its seat at its generation: like a seat's token, it
-- stops authorising once the seat is reissued (`seat_generations`), and
-- at `expires_at` (the cookie's own lifetime) whatever happens.
CREATE TABLE page_sessions (
    game_id     uuid        NOT NULL REFERENCES games (game_id),
    secret_hash text        NOT NULL,
    seat        text        NOT NULL,
    generation  bigint      NOT NULL CHECK (generation >= 0),
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, secret_hash)
);

-- A session its browser left ("leave this device"): refused from then on.
CREATE TABLE page_session_ends (
    game_id     uuid        NOT NULL,
    secret_hash text        NOT NULL,
    ended_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, secret_hash),
    FOREIGN KEY (game_id, secret_hash) REFERENCES page_sessions (game_id, secret_hash)
);

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'umpire_app') THEN
        GRANT SELECT, INSERT ON page_sessions, page_session_ends TO umpire_app;
    END IF;
END;
$$;

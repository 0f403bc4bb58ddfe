//! Every error code the service and the API answer with, besides the
//! games' own violation codes (`Game::VIOLATIONS`): the list the OpenAPI
//! document publishes as `ErrorBody.code`'s enum. A test holds every error
//! the suite meets to it (`tests/http/support.rs::assert_error`). An error
//! row of a bulk score (`POST /v1/scores`, `umpire score`) carries one of
//! them too, `umpire_archive::ScoreFault`'s: the code an answer about that
//! archive would carry (`tests/http/codes_statuses.rs` holds every one).

/// One platform error code and when it is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorCode {
    pub code: &'static str,
    pub meaning: &'static str,
}

macro_rules! error_codes {
    ($($code:literal => $meaning:literal;)+) => {
        /// Every platform error code, in the order the document lists them.
        pub const PLATFORM: &[ErrorCode] = &[$(ErrorCode { code: $code, meaning: $meaning }),+];
    };
}

error_codes! {
    "malformed_json" => "400: the body is not valid JSON, or not the shape this operation takes.";
    "malformed_body" => "400: the body could not be read.";
    "invalid_query" => "400: a query parameter is malformed or unknown.";
    "invalid_limit" => "400: `limit` is outside what the operation takes (1 to 1000 events, 1 to 200 games).";
    "invalid_cursor" => "400: `after` is not a cursor the list of games gave.";
    "invalid_last_event_id" => "400: `Last-Event-ID` of a stream is not a version number.";
    "invalid_seed" => "400: the seed is larger than 2^63 - 1.";
    "invalid_action" => "400: the action is not an action of this game.";
    "invalid_options" => "400: the options are not options of this game.";
    "invalid_event" => "400: an event is not an event of this game.";
    "invalid_archive" => "400: the body is not an archive.";
    "invalid_idempotency_key" => "400: Idempotency-Key is not 1 to 200 visible ASCII characters.";
    "ambiguous_seat_cookie" => "400: the request carries more than one seat cookie; the service sets one per game, so another origin of this host name set the other.";
    "unknown_seat" => "400: a seat named is not a seat of this game.";
    "log_full" => "422: the game's log holds as many events as a log may (10,000): it takes no more actions, and an archive longer than that is not imported.";
    "version_out_of_range" => "400: the version asked for does not exist yet.";
    "missing_token" => "401: this needs a token (a seat's, the umpire's or the admin's) and none was sent.";
    "invalid_token" => "401: the token is malformed or not valid for this game.";
    "page_session_ended" => "401: the seat's cookie no longer gives a seat in this game (this device left it, its 30 days ran out, or the umpire reissued the seat); the answer clears the cookie.";
    "umpire_only" => "403: only the umpire token may do this.";
    "seat_only" => "403: only a seat (by its token or its cookie) may do this, for itself.";
    "cross_site_request" => "403: the seat's cookie came with a request from another origin (`Sec-Fetch-Site`, `Origin`); only the game's own page may use it, and a client sends the seat's token instead.";
    "game_not_found" => "404: there is no such game.";
    "invitation_unknown" => "404: no invitation has this code (or it is not shaped like one).";
    "invitation_used" => "410: the invitation was redeemed before; each works once.";
    "invitation_expired" => "410: the invitation's time ran out (7 days for the umpire's invitations, 10 minutes for a seat's link to another device).";
    "invitation_revoked" => "410: the seat's token was reissued since the invitation was made.";
    "invalid_game_id" => "404: the game id is not a UUID.";
    "route_not_found" => "404: there is no such endpoint.";
    "method_not_allowed" => "405: the path is served, but not with this method; `Allow` lists the methods it answers.";
    "body_timeout" => "408: the body stalled (5 s between parts, 60 s in all).";
    "version_conflict" => "409: the game is not at `expected_version` (`details.expected`, `details.actual`).";
    "contended" => "409: the game was too busy to take this action in time; nothing was applied, send it again.";
    "game_already_exists" => "409: a game with the archive's id is already stored.";
    "payload_too_large" => "413: the body or the number of archives in it is over the limit.";
    "unsupported_content_type" => "415: a JSON body was sent without Content-Type: application/json.";
    "unknown_game" => "422: there is no game of that name.";
    "idempotency_key_reused" => "422: the Idempotency-Key was used before with another request.";
    "unsupported_archive" => "422: the archive's format or format_version is not one this build reads.";
    "archive_sequence_gap" => "422: the archive's events do not run 1, 2, 3 … (`details.seq`).";
    "archive_chain_broken" => "422: an event's prev_hash is not the previous event's hash.";
    "archive_hash_mismatch" => "422: an event's hash does not match its contents.";
    "archive_event_type_mismatch" => "422: an event's type is not its payload's type.";
    "archive_setup_mismatch" => "422: the setup events are not what the seed deals.";
    "archive_unexplained_event" => "422: an event is not produced by today's rules from its action.";
    "archive_missing_event" => "422: today's rules produce an event the archive lacks.";
    "archive_event_differs" => "422: an event differs from what today's rules produce.";
    "archive_action_refused" => "422: today's rules refuse a recorded action (`details.violation`: the code they refuse it with).";
    "archive_malformed_action" => "422: a recorded action is not an action of the game.";
    "archive_nul_character" => "422: a string holds U+0000, which cannot be stored.";
    "archive_nil_game_id" => "422: the archive's game id is the nil UUID.";
    "archive_seed_out_of_range" => "422: the archive's seed is past 2^63 - 1, the largest a game is created with.";
    "archive_time_runs_backwards" => "422: an event's recorded_at is earlier than the event before it (`details.seq`).";
    "archive_time_in_future" => "422: an event's recorded_at is more than 5 minutes past this server's clock.";
    "archive_does_not_fold" => "422: an event of an archive does not fold into its game's state (it is not an event of the game, or the state before it cannot take it): the code of a bulk score's error row (an import refuses the archive with what its replay finds).";
    "archive_untimely_timeout" => "422: a clock timeout is recorded before the seat's deadline as the log gives it, for a seat that was not due, or while the clock was paused and the seat's deadline had not passed before the pause.";
    "archive_rejection_unknown_actor" => "422: a rejection's actor is not the umpire or a seat (`details.rejection`).";
    "archive_rejection_version_out_of_range" => "422: a rejection's version is outside the log.";
    "archive_rejection_nul_character" => "422: a rejection holds U+0000.";
    "archive_rejection_invalid_time" => "422: a rejection's time is not RFC 3339.";
    "archive_rejection_invalid_text" => "422: a rejection's code, message or rule is too long or not text.";
    "archive_rejection_rules_version_mismatch" => "422: a rejection's rules version is not the game's.";
    "archive_rejection_invalid_repeats" => "422: a rejection's repeat count is not positive.";
    "archive_rejection_duplicate" => "422: a rejection is listed twice.";
    "archive_rejection_over_cap" => "422: more distinct rejections at one version than the store keeps.";
    "archive_rejection_over_game_cap" => "422: more rejections in one game than the store keeps (10,000).";
    "archive_rejection_time_in_future" => "422: a rejection's recorded_at is more than 5 minutes past this server's clock.";
    "too_many_refusals" => "429: this token's refused actions in this game came too fast; retry after `Retry-After` seconds.";
    "too_many_streams" => "429: this client (its token, or its address for a spectator), or the address it comes from whatever the token, holds its limit of live streams open (`details.limit`); close one.";
    "too_many_umpire_actions" => "429: the umpire's actions outside the rules (pause, resume, extra time, reissue, ruling) came faster than a game takes them; retry after `Retry-After` seconds.";
    "too_many_games" => "429: this address created or imported games faster than a service without an admin token allows; retry after `Retry-After` seconds.";
    "too_many_device_links" => "429: this seat made links to another device faster than a seat may (5, then one a minute); retry after `Retry-After` seconds.";
    "too_many_failed_redemptions" => "429: this address redeemed too many unknown, used or expired invitations; retry after `Retry-After` seconds.";
    "internal" => "500: a fault of the service; the cause is in its log.";
    "unavailable" => "503: the database is unavailable; retry after `Retry-After`.";
    "busy" => "503: the instance is handling as many archive bodies or live streams as it may, or its memory budget is spent; retry after `Retry-After`.";
}

/// Every code an error body may carry, with its meaning: the platform's,
/// then each registered game's violation codes (a code decided by several
/// sections once, its meanings joined, each with its section).
pub fn published(registry: &umpire_domain::Registry) -> Vec<(String, String)> {
    let mut codes: Vec<(String, String)> = PLATFORM
        .iter()
        .map(|code| (code.code.to_string(), code.meaning.to_string()))
        .collect();
    let clock = umpire_domain::clock::ALL;
    let seats = umpire_domain::seat_tokens::ALL;
    let rulings = umpire_domain::rulings::ALL;
    for kinds in registry
        .games()
        .map(|game| game.violation_kinds())
        .chain([clock, seats, rulings])
    {
        for kind in kinds {
            let meaning = format!("422 ({}): {}", kind.rule, kind.meaning);
            match codes.iter_mut().find(|(code, _)| code == kind.code) {
                Some((_, meanings)) => {
                    meanings.push(' ');
                    meanings.push_str(&meaning);
                }
                None => codes.push((kind.code.to_string(), meaning)),
            }
        }
    }
    codes
}

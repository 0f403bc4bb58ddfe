//! The events the platform records beside a game's own: the clock's, a
//! seat's token reissued, the umpire's ruling. Each takes a place in the log
//! and changes nothing in the game, so every game's fold passes over them.
//! Their names live here, beneath the type-erased game (`erased`), which
//! passes over them, and the clock, the seats' tokens and the rulings,
//! which decide them: none of those names another for them.

/// The `type` every event and action of the clock starts with; no game
/// may name one of its own so.
pub const CLOCK_TYPE_PREFIX: &str = "clock_";
/// The event the log records a seat's token reissue by.
pub const REISSUED_EVENT: &str = "seat_token_reissued";
/// The event the log records a ruling by.
pub const RULING_EVENT: &str = "ruling_recorded";

/// Whether an event of `event_type` is one of the platform's: the clock's,
/// a reissue or a ruling, nothing in the game.
pub fn is_outside_the_rules(event_type: &str) -> bool {
    event_type.starts_with(CLOCK_TYPE_PREFIX)
        || event_type == REISSUED_EVENT
        || event_type == RULING_EVENT
}

//! A game's log has a length: what an action or an import may not take it
//! past, so that every read of a log, cold ones included, is bounded.

use crate::error::ServiceError;

/// The most events one game's log holds. No game played by its rules
/// comes near it (the longest seen are a few hundred events); what does is
/// a log lengthened without end by actions outside the rules (pauses,
/// resumes, reissues), whose every cold read would replay it.
pub const MAX_EVENTS_PER_GAME: u64 = 10_000;

/// Refuses `added` events at the end of a log of `version` events when
/// they would take it past [`MAX_EVENTS_PER_GAME`]: every way of
/// appending asks this (an action, the umpire's reissue of a seat).
pub(crate) fn check_room(version: u64, added: usize) -> Result<(), ServiceError> {
    if version + added as u64 > MAX_EVENTS_PER_GAME {
        return Err(log_full(version));
    }
    Ok(())
}

/// The refusal of an action that would lengthen a log past
/// [`MAX_EVENTS_PER_GAME`].
fn log_full(version: u64) -> ServiceError {
    ServiceError::unprocessable(
        "log_full",
        format!(
            "The game's log holds {version} events and may hold at most {MAX_EVENTS_PER_GAME}; \
             it takes no more actions."
        ),
    )
}

/// Refuses an archive of more events than a log may hold, before it is
/// replayed.
pub(crate) fn check_archive(events: usize) -> Result<(), ServiceError> {
    if events as u64 > MAX_EVENTS_PER_GAME {
        return Err(ServiceError::unprocessable(
            "log_full",
            format!(
                "The archive holds {events} events; a game's log may hold at most \
                 {MAX_EVENTS_PER_GAME}."
            ),
        ));
    }
    Ok(())
}

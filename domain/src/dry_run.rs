//! What a dry run of an action may tell the one who asks.
//!
//! A dry run must say no more than sending the action would, and must not
//! let a seat learn without committing what the action would reveal: after
//! one secret bid, the events a second bid would produce (the bids revealed,
//! the round ended, new cards dealt) tell the second bidder what the first
//! bid was. A seat's dry run therefore says only whether the action would be
//! accepted, or which rule refuses it — the answer the action itself would
//! get first, which `decide` keeps free of other seats' secrets (each game's
//! property tests hold that, through the `testing` module). The umpire sees
//! everything anyway and gets the events in full.

use crate::{Actor, Violation};

/// The answer to a dry run, as the asker may see it.
#[derive(Debug, Clone, PartialEq)]
pub struct DryRun<E> {
    pub legal: bool,
    /// The events the action would produce: the umpire's only, empty for a
    /// seat.
    pub events: Vec<E>,
    pub violation: Option<Violation>,
}

/// What `asker` may learn from `decide`'s answer to its action.
pub fn dry_run<S, E>(decision: Result<Vec<E>, Violation>, asker: &Actor<S>) -> DryRun<E> {
    match decision {
        Ok(events) => DryRun {
            legal: true,
            events: match asker {
                Actor::Umpire => events,
                Actor::Seat(_) => Vec::new(),
            },
            violation: None,
        },
        Err(violation) => DryRun {
            legal: false,
            events: Vec::new(),
            violation: Some(violation),
        },
    }
}

impl<E> DryRun<E> {
    pub fn map_events<F>(self, f: impl FnMut(E) -> F) -> DryRun<F> {
        DryRun {
            legal: self.legal,
            events: self.events.into_iter().map(f).collect(),
            violation: self.violation,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal() -> Violation {
        Violation::new("game.refused", "game §1", "Refused.")
    }

    #[test]
    fn a_seat_learns_only_whether_its_action_is_accepted() {
        let seat = dry_run(Ok(vec!["bids_revealed", "round_ended"]), &Actor::Seat(0u8));
        assert!(seat.legal);
        assert!(seat.events.is_empty());
        let umpire = dry_run::<u8, _>(Ok(vec!["bids_revealed"]), &Actor::Umpire);
        assert_eq!(umpire.events, vec!["bids_revealed"]);
    }

    #[test]
    fn a_refusal_is_told_to_everyone_who_asks() {
        let seat = dry_run::<_, ()>(Err(refusal()), &Actor::Seat(0u8));
        assert!(!seat.legal);
        assert_eq!(seat.violation, Some(refusal()));
    }
}

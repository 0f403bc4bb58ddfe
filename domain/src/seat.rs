//! Seats, actors and viewers.

use std::fmt::Debug;
use std::hash::Hash;

/// A seat of a game: a closed set of names (`red`, `blue`; `0`..`4`).
/// Seats are never free-form player names.
pub trait Seat: Copy + Eq + Ord + Hash + Debug + Send + Sync + 'static {
    /// The seat's name as it appears in URLs, tokens and JSON maps.
    fn name(&self) -> String;
    /// Parses a seat name; `None` for a name the game does not have.
    fn parse(name: &str) -> Option<Self>;
}

/// A numbered seat (`0`, `1`, …) for games whose seats are positions in a ring.
/// Serialised as a plain integer in actions and events, named `"0"`, `"1"`
/// in token maps and URLs.
#[derive(
    get_size2::GetSize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    utoipa::ToSchema,
)]
#[serde(transparent)]
pub struct SeatIndex(pub u8);

impl Seat for SeatIndex {
    fn name(&self) -> String {
        self.0.to_string()
    }
    fn parse(name: &str) -> Option<Self> {
        // Only canonical decimal names: "01" or "+1" are not seats.
        if name.is_empty() || name.len() > 3 || (name.len() > 1 && name.starts_with('0')) {
            return None;
        }
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        name.parse().ok().map(SeatIndex)
    }
}

/// Who sends an action: a seat (with that seat's token) or the umpire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Actor<S> {
    Seat(S),
    Umpire,
}

/// Who looks at a state, an event or a score sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Viewer<S> {
    /// No token: sees only what is public.
    Spectator,
    /// A seat token: public information plus that seat's secrets.
    Seat(S),
    /// The umpire token: sees everything, including deck orders and seeds.
    Umpire,
}

impl<S: Copy + Eq> Viewer<S> {
    /// True when this viewer may see the secrets of `seat`.
    pub fn sees_secrets_of(&self, seat: S) -> bool {
        match self {
            Viewer::Umpire => true,
            Viewer::Seat(own) => *own == seat,
            Viewer::Spectator => false,
        }
    }
}

impl<S> Viewer<S> {
    pub fn is_umpire(&self) -> bool {
        matches!(self, Viewer::Umpire)
    }

    /// Whom this viewer may act as: the same seat, or the umpire; `None`
    /// for a spectator, who may not act.
    pub fn actor(&self) -> Option<Actor<&S>> {
        match self {
            Viewer::Spectator => None,
            Viewer::Seat(seat) => Some(Actor::Seat(seat)),
            Viewer::Umpire => Some(Actor::Umpire),
        }
    }
}

impl<S: Clone> Actor<&S> {
    /// The actor with its seat owned.
    pub fn cloned(&self) -> Actor<S> {
        match self {
            Actor::Seat(seat) => Actor::Seat((*seat).clone()),
            Actor::Umpire => Actor::Umpire,
        }
    }
}

impl<S> From<Actor<S>> for Viewer<S> {
    fn from(actor: Actor<S>) -> Self {
        match actor {
            Actor::Seat(seat) => Viewer::Seat(seat),
            Actor::Umpire => Viewer::Umpire,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_index_parses_only_canonical_names() {
        assert_eq!(SeatIndex::parse("0"), Some(SeatIndex(0)));
        assert_eq!(SeatIndex::parse("4"), Some(SeatIndex(4)));
        assert_eq!(SeatIndex::parse("04"), None);
        assert_eq!(SeatIndex::parse("-1"), None);
        assert_eq!(SeatIndex::parse(""), None);
        assert_eq!(SeatIndex::parse("red"), None);
    }

    #[test]
    fn a_viewer_acts_as_its_seat_or_the_umpire_and_a_spectator_not_at_all() {
        assert_eq!(
            Viewer::Seat(SeatIndex(1)).actor(),
            Some(Actor::Seat(&SeatIndex(1)))
        );
        assert_eq!(Viewer::<SeatIndex>::Umpire.actor(), Some(Actor::Umpire));
        assert_eq!(Viewer::<SeatIndex>::Spectator.actor(), None);
        for actor in [Actor::Seat(SeatIndex(2)), Actor::Umpire] {
            assert_eq!(Viewer::from(actor).actor().map(|a| a.cloned()), Some(actor));
        }
    }

    #[test]
    fn a_seat_sees_its_own_secrets_only() {
        let viewer = Viewer::Seat(SeatIndex(1));
        assert!(viewer.sees_secrets_of(SeatIndex(1)));
        assert!(!viewer.sees_secrets_of(SeatIndex(2)));
        assert!(!Viewer::<SeatIndex>::Spectator.sees_secrets_of(SeatIndex(1)));
        assert!(Viewer::<SeatIndex>::Umpire.sees_secrets_of(SeatIndex(1)));
    }
}

//! The actor labels of the log: how who caused an event or a refusal is
//! written with it — `umpire`, `seat:<name>`, and `system` for setup, which
//! no actor caused. The one codec between an [`Actor`] and its label, for
//! the store, archives and the service alike; the hash covers the label's
//! text, so it is kept as recorded and read with [`read`], never rebuilt.

use crate::seat::Actor;

/// The label of setup events, which no actor caused.
pub const SYSTEM: &str = "system";
/// The label of the clock, which times seats out when their time runs out
/// (`crate::clock`); not an actor a token can act as.
pub const CLOCK: &str = "clock";
const UMPIRE: &str = "umpire";
const SEAT_PREFIX: &str = "seat:";

/// The label `actor` is recorded under: `umpire` or `seat:<name>`.
pub fn write<S: AsRef<str>>(actor: &Actor<S>) -> String {
    match actor {
        Actor::Umpire => UMPIRE.to_string(),
        Actor::Seat(seat) => format!("{SEAT_PREFIX}{}", seat.as_ref()),
    }
}

/// The actor `label` names; `None` for [`SYSTEM`] (setup) and for anything
/// that is not a label.
pub fn read(label: &str) -> Option<Actor<String>> {
    if label == UMPIRE {
        return Some(Actor::Umpire);
    }
    label
        .strip_prefix(SEAT_PREFIX)
        .filter(|seat| !seat.is_empty())
        .map(|seat| Actor::Seat(seat.to_string()))
}

/// Whether `label` is `actor`'s, without writing it out.
pub fn names<S: AsRef<str>>(label: &str, actor: &Actor<S>) -> bool {
    match actor {
        Actor::Umpire => label == UMPIRE,
        Actor::Seat(seat) => label.strip_prefix(SEAT_PREFIX) == Some(seat.as_ref()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_read_back_the_actor_they_were_written_for() {
        for actor in [
            Actor::Umpire,
            Actor::Seat("red".to_string()),
            Actor::Seat("0".to_string()),
        ] {
            assert_eq!(read(&write(&actor)), Some(actor));
        }
        assert_eq!(write(&Actor::Seat("0")), "seat:0");
        assert_eq!(write(&Actor::<&str>::Umpire), "umpire");
        for not_an_actor in [SYSTEM, "", "seat:", "Umpire", "seat", "spectator", "red"] {
            assert_eq!(read(not_an_actor), None, "{not_an_actor:?}");
        }
    }

    /// `names` agrees with writing the label out and comparing.
    #[test]
    fn a_label_names_its_actor_and_no_other() {
        let actors = [Actor::Umpire, Actor::Seat("red"), Actor::Seat("re")];
        let texts = [
            "system",
            "umpire",
            "seat:red",
            "seat:re",
            "seat:",
            "red",
            "seat:redd",
        ];
        for actor in &actors {
            for text in texts {
                assert_eq!(
                    names(text, actor),
                    write(actor) == text,
                    "{actor:?} vs {text}"
                );
            }
        }
    }
}

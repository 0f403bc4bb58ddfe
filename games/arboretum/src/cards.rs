//! Tree cards: eight suits `P`–`W` × numbers 1–8, written `Q7` in JSON (§1).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::Schema;
use utoipa::openapi::RefOr;

/// One of the eight tree suits, written as its letter.
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
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
pub enum ArboretumSuit {
    P,
    Q,
    R,
    S,
    T,
    U,
    V,
    W,
}

impl ArboretumSuit {
    /// Every suit in the order the score sheet lists them.
    pub const ALL: [ArboretumSuit; 8] = [
        ArboretumSuit::P,
        ArboretumSuit::Q,
        ArboretumSuit::R,
        ArboretumSuit::S,
        ArboretumSuit::T,
        ArboretumSuit::U,
        ArboretumSuit::V,
        ArboretumSuit::W,
    ];

    pub fn letter(self) -> char {
        match self {
            ArboretumSuit::P => 'P',
            ArboretumSuit::Q => 'Q',
            ArboretumSuit::R => 'R',
            ArboretumSuit::S => 'S',
            ArboretumSuit::T => 'T',
            ArboretumSuit::U => 'U',
            ArboretumSuit::V => 'V',
            ArboretumSuit::W => 'W',
        }
    }

    pub fn from_letter(letter: char) -> Option<Self> {
        ArboretumSuit::ALL
            .into_iter()
            .find(|suit| suit.letter() == letter)
    }
}

/// A tree card such as `Q7`. Only valid cards can be built or parsed.
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
    serde_with::SerializeDisplay,
    serde_with::DeserializeFromStr,
)]
pub struct ArboretumCard {
    suit: ArboretumSuit,
    number: u8,
}

impl ArboretumCard {
    /// A card, if `number` is 1–8.
    pub fn new(suit: ArboretumSuit, number: u8) -> Option<Self> {
        (1..=8)
            .contains(&number)
            .then_some(ArboretumCard { suit, number })
    }

    pub fn suit(self) -> ArboretumSuit {
        self.suit
    }

    pub fn number(self) -> u8 {
        self.number
    }

    /// Parses `"Q7"`; panics on anything else. For tests and examples only.
    #[track_caller]
    pub fn of(text: &str) -> Self {
        text.parse()
            .unwrap_or_else(|error| panic!("bad card {text:?}: {error}"))
    }
}

/// The 64 cards in a fixed order (P1…P8, Q1…, W8), before shuffling.
pub fn full_deck() -> Vec<ArboretumCard> {
    ArboretumSuit::ALL
        .into_iter()
        .flat_map(|suit| (1..=8).map(move |number| ArboretumCard { suit, number }))
        .collect()
}

impl fmt::Display for ArboretumCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.suit.letter(), self.number)
    }
}

impl FromStr for ArboretumCard {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut chars = text.chars();
        let (Some(letter), Some(digit), None) = (chars.next(), chars.next(), chars.next()) else {
            return Err(format!(
                "a card is a suit letter P-W and a number 1-8, not {text:?}"
            ));
        };
        let suit = ArboretumSuit::from_letter(letter)
            .ok_or_else(|| format!("{letter:?} is not a suit (P-W)"))?;
        let number = digit
            .to_digit(10)
            .and_then(|number| u8::try_from(number).ok())
            .and_then(|number| ArboretumCard::new(suit, number).map(|card| card.number))
            .ok_or_else(|| format!("{digit:?} is not a card number (1-8)"))?;
        Ok(ArboretumCard { suit, number })
    }
}

impl utoipa::PartialSchema for ArboretumCard {
    fn schema() -> RefOr<Schema> {
        umpire_domain::text_schema::with_pattern(
            "A tree card: suit letter P-W then number 1-8.",
            "^[P-W][1-8]$",
            "Q7",
        )
    }
}

impl utoipa::ToSchema for ArboretumCard {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_round_trip_through_their_compact_text() {
        for card in full_deck() {
            assert_eq!(card.to_string().parse::<ArboretumCard>(), Ok(card));
        }
        assert_eq!(full_deck().len(), 64);
    }

    #[test]
    fn malformed_cards_are_refused() {
        for text in ["", "Q", "Q0", "Q9", "X1", "q1", "Q77", "7Q"] {
            assert!(text.parse::<ArboretumCard>().is_err(), "{text}");
        }
    }
}

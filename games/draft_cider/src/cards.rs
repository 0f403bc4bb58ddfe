//! The 75 apple cards (colour × height × sweetness), written `gold h3 s5` in JSON.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::Schema;
use utoipa::openapi::RefOr;

/// An apple's colour (rule book §1).
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
#[serde(rename_all = "snake_case")]
pub enum DraftCiderColour {
    Green,
    Gold,
    Red,
}

impl DraftCiderColour {
    pub const ALL: [DraftCiderColour; 3] = [
        DraftCiderColour::Green,
        DraftCiderColour::Gold,
        DraftCiderColour::Red,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DraftCiderColour::Green => "green",
            DraftCiderColour::Gold => "gold",
            DraftCiderColour::Red => "red",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        DraftCiderColour::ALL
            .into_iter()
            .find(|colour| colour.name() == name)
    }
}

impl fmt::Display for DraftCiderColour {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// The lowest and highest height and sweetness printed on a card (§1).
pub const LOWEST_VALUE: u8 = 1;
pub const HIGHEST_VALUE: u8 = 5;

/// One apple card. Height and sweetness are always within 1–5: the only ways
/// to make a card are [`DraftCiderCard::new`] and parsing, which both check.
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
pub struct DraftCiderCard {
    colour: DraftCiderColour,
    height: u8,
    sweetness: u8,
}

impl DraftCiderCard {
    /// A card, or `None` when height or sweetness is outside 1–5.
    pub fn new(colour: DraftCiderColour, height: u8, sweetness: u8) -> Option<Self> {
        let in_range = |value: u8| (LOWEST_VALUE..=HIGHEST_VALUE).contains(&value);
        (in_range(height) && in_range(sweetness)).then_some(DraftCiderCard {
            colour,
            height,
            sweetness,
        })
    }

    pub fn colour(self) -> DraftCiderColour {
        self.colour
    }

    pub fn height(self) -> u8 {
        self.height
    }

    pub fn sweetness(self) -> u8 {
        self.sweetness
    }
}

/// All 75 cards, one of each colour × height × sweetness, in a fixed order
/// (colour, then height, then sweetness) before shuffling (§1).
pub fn full_deck() -> Vec<DraftCiderCard> {
    let mut deck = Vec::with_capacity(75);
    for colour in DraftCiderColour::ALL {
        for height in LOWEST_VALUE..=HIGHEST_VALUE {
            for sweetness in LOWEST_VALUE..=HIGHEST_VALUE {
                deck.push(DraftCiderCard {
                    colour,
                    height,
                    sweetness,
                });
            }
        }
    }
    deck
}

impl fmt::Display for DraftCiderCard {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "{} h{} s{}",
            self.colour, self.height, self.sweetness
        )
    }
}

/// Why a card string could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DraftCiderCardParseError(String);

impl fmt::Display for DraftCiderCardParseError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "`{}` is not a card like `gold h3 s5` (colour green|gold|red, height 1–5, sweetness 1–5)",
            self.0
        )
    }
}

impl std::error::Error for DraftCiderCardParseError {}

impl FromStr for DraftCiderCard {
    type Err = DraftCiderCardParseError;

    /// Only the canonical spelling is accepted (single spaces, lower case), so
    /// that a card has exactly one JSON form.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = || DraftCiderCardParseError(text.to_string());
        let mut parts = text.split(' ');
        let (Some(colour), Some(height), Some(sweetness), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(error());
        };
        let colour = DraftCiderColour::parse(colour).ok_or_else(error)?;
        let digit = |part: &str, prefix: char| -> Option<u8> {
            let rest = part.strip_prefix(prefix)?;
            let mut bytes = rest.bytes();
            match (bytes.next(), bytes.next()) {
                (Some(byte @ b'0'..=b'9'), None) => Some(byte - b'0'),
                _ => None,
            }
        };
        let height = digit(height, 'h').ok_or_else(error)?;
        let sweetness = digit(sweetness, 's').ok_or_else(error)?;
        DraftCiderCard::new(colour, height, sweetness).ok_or_else(error)
    }
}

impl utoipa::PartialSchema for DraftCiderCard {
    fn schema() -> RefOr<Schema> {
        umpire_domain::text_schema::with_pattern(
            "An apple card: colour (green, gold, red), height h1–h5 and sweetness s1–s5.",
            "^(green|gold|red) h[1-5] s[1-5]$",
            "gold h3 s5",
        )
    }
}

impl utoipa::ToSchema for DraftCiderCard {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deck_has_seventy_five_distinct_cards() {
        let deck = full_deck();
        let distinct: std::collections::BTreeSet<_> = deck.iter().collect();
        assert_eq!(deck.len(), 75);
        assert_eq!(distinct.len(), 75);
    }

    #[test]
    fn a_card_round_trips_through_its_string() {
        for card in full_deck() {
            assert_eq!(card.to_string().parse::<DraftCiderCard>(), Ok(card));
        }
        let card: DraftCiderCard = "gold h3 s5".parse().expect("a card");
        assert_eq!(card.colour(), DraftCiderColour::Gold);
        assert_eq!((card.height(), card.sweetness()), (3, 5));
    }

    #[test]
    fn malformed_card_strings_are_refused() {
        for text in [
            "",
            "gold",
            "gold h3",
            "gold h3 s6",
            "gold h0 s1",
            "blue h1 s1",
            "gold  h3 s5",
            "Gold h3 s5",
            "gold h3 s5 ",
            "gold s3 h5",
            "gold h33 s5",
            "gold h3 s5 x",
        ] {
            assert!(text.parse::<DraftCiderCard>().is_err(), "{text:?} parsed");
        }
    }
}

//! The eight batches of an orchard: where a card may be placed and what a
//! batch scores (rule book §3).

use serde::{Deserialize, Serialize};
use umpire_domain::Violation;

use crate::cards::{DraftCiderCard, DraftCiderColour};
use crate::codes;
use crate::options::{DraftCiderBrokenTree, DraftCiderOptions};

/// One of the eight batches every player has (§3).
#[derive(
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
pub enum DraftCiderBatch {
    Monochrome,
    Feather,
    SpecialTree,
    Unlucky,
    Fortepiano,
    SweetCouple,
    Steady,
    Bad,
}

impl DraftCiderBatch {
    /// All batches in the rule book's order.
    pub const ALL: [DraftCiderBatch; 8] = [
        DraftCiderBatch::Monochrome,
        DraftCiderBatch::Feather,
        DraftCiderBatch::SpecialTree,
        DraftCiderBatch::Unlucky,
        DraftCiderBatch::Fortepiano,
        DraftCiderBatch::SweetCouple,
        DraftCiderBatch::Steady,
        DraftCiderBatch::Bad,
    ];

    /// The batch id used in JSON (§3 table).
    pub fn id(self) -> &'static str {
        match self {
            DraftCiderBatch::Monochrome => "monochrome",
            DraftCiderBatch::Feather => "feather",
            DraftCiderBatch::SpecialTree => "special_tree",
            DraftCiderBatch::Unlucky => "unlucky",
            DraftCiderBatch::Fortepiano => "fortepiano",
            DraftCiderBatch::SweetCouple => "sweet_couple",
            DraftCiderBatch::Steady => "steady",
            DraftCiderBatch::Bad => "bad",
        }
    }
}

/// One player's eight batches, each in placement order.
#[derive(
    get_size2::GetSize,
    Debug,
    Clone,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
pub struct DraftCiderOrchard {
    pub monochrome: Vec<DraftCiderCard>,
    pub feather: Vec<DraftCiderCard>,
    pub special_tree: Vec<DraftCiderCard>,
    pub unlucky: Vec<DraftCiderCard>,
    pub fortepiano: Vec<DraftCiderCard>,
    pub sweet_couple: Vec<DraftCiderCard>,
    pub steady: Vec<DraftCiderCard>,
    pub bad: Vec<DraftCiderCard>,
}

impl DraftCiderOrchard {
    pub fn cards(&self, batch: DraftCiderBatch) -> &[DraftCiderCard] {
        match batch {
            DraftCiderBatch::Monochrome => &self.monochrome,
            DraftCiderBatch::Feather => &self.feather,
            DraftCiderBatch::SpecialTree => &self.special_tree,
            DraftCiderBatch::Unlucky => &self.unlucky,
            DraftCiderBatch::Fortepiano => &self.fortepiano,
            DraftCiderBatch::SweetCouple => &self.sweet_couple,
            DraftCiderBatch::Steady => &self.steady,
            DraftCiderBatch::Bad => &self.bad,
        }
    }

    pub fn cards_mut(&mut self, batch: DraftCiderBatch) -> &mut Vec<DraftCiderCard> {
        match batch {
            DraftCiderBatch::Monochrome => &mut self.monochrome,
            DraftCiderBatch::Feather => &mut self.feather,
            DraftCiderBatch::SpecialTree => &mut self.special_tree,
            DraftCiderBatch::Unlucky => &mut self.unlucky,
            DraftCiderBatch::Fortepiano => &mut self.fortepiano,
            DraftCiderBatch::SweetCouple => &mut self.sweet_couple,
            DraftCiderBatch::Steady => &mut self.steady,
            DraftCiderBatch::Bad => &mut self.bad,
        }
    }

    pub fn card_count(&self) -> usize {
        DraftCiderBatch::ALL
            .iter()
            .map(|batch| self.cards(*batch).len())
            .sum()
    }

    /// How many of the eight batches hold at least one card (the §4 tie-breaker).
    pub fn non_empty_batches(&self) -> u8 {
        let count = DraftCiderBatch::ALL
            .iter()
            .filter(|batch| !self.cards(**batch).is_empty())
            .count();
        u8::try_from(count).unwrap_or(u8::MAX)
    }

    /// True when a card of `colour` lies in any batch except `bad` and
    /// `special_tree` (the tree's own card is not "another" card, §3).
    pub fn has_colour_outside_bad_and_tree(&self, colour: DraftCiderColour) -> bool {
        DraftCiderBatch::ALL
            .iter()
            .filter(|batch| !matches!(batch, DraftCiderBatch::Bad | DraftCiderBatch::SpecialTree))
            .any(|batch| {
                self.cards(*batch)
                    .iter()
                    .any(|card| card.colour() == colour)
            })
    }

    /// The colour the Monochrome batch is fixed to by its first card (§3 ruling).
    pub fn monochrome_colour(&self) -> Option<DraftCiderColour> {
        self.monochrome.first().map(|card| card.colour())
    }
}

/// The attributes an Apples of a Feather chain may still continue on (§3):
/// both live after the first card, one once a card matched only that one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DraftCiderFeatherChain {
    /// The sweetness every further card may match, while it is live.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweetness: Option<u8>,
    /// The height every further card may match, while it is live.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u8>,
}

impl DraftCiderFeatherChain {
    fn matches_sweetness(self, card: DraftCiderCard) -> bool {
        self.sweetness == Some(card.sweetness())
    }

    fn matches_height(self, card: DraftCiderCard) -> bool {
        self.height == Some(card.height())
    }

    /// The chain after `card` is added: a card matching exactly one live
    /// attribute locks the chain to it; matching both keeps both live.
    fn after(self, card: DraftCiderCard) -> Self {
        match (self.matches_sweetness(card), self.matches_height(card)) {
            (true, false) => DraftCiderFeatherChain {
                height: None,
                ..self
            },
            (false, true) => DraftCiderFeatherChain {
                sweetness: None,
                ..self
            },
            // Both match: both stay live. Neither: placement refused it, so
            // a stored batch never gets here; leave the chain as it is.
            _ => self,
        }
    }
}

/// The chain of a Feather batch; `None` while it is empty (any card may start it).
pub fn feather_chain(cards: &[DraftCiderCard]) -> Option<DraftCiderFeatherChain> {
    let (first, rest) = cards.split_first()?;
    let start = DraftCiderFeatherChain {
        sweetness: Some(first.sweetness()),
        height: Some(first.height()),
    };
    Some(rest.iter().fold(start, |chain, card| chain.after(*card)))
}

/// Whether `card` may be placed in `batch` of `orchard` right now (§3).
pub fn check_placement(
    orchard: &DraftCiderOrchard,
    batch: DraftCiderBatch,
    card: DraftCiderCard,
) -> Result<(), Violation> {
    let cards = orchard.cards(batch);
    let last = cards.last().copied();
    // The Fortepiano and Sweet Couple pairs are formed in placement order, so
    // an odd count means the new card completes a pair with the last one.
    let completes_pair = cards.len() % 2 == 1;
    match batch {
        DraftCiderBatch::Monochrome => match orchard.monochrome_colour() {
            Some(colour) if colour != card.colour() => Err(codes::MONOCHROME_COLOUR.with(format!("{card} is not {colour}, the colour of this Monochrome batch."))),
            _ => Ok(()),
        },
        DraftCiderBatch::Feather => match feather_chain(cards) {
            Some(chain) if !chain.matches_sweetness(card) && !chain.matches_height(card) => {
                Err(codes::FEATHER_MISMATCH.with(format!(
                        "{card} matches neither live attribute of the Feather chain ({}).",
                        describe_chain(chain)
                    )))
            }
            _ => Ok(()),
        },
        DraftCiderBatch::SpecialTree => {
            if let Some(tree) = cards.first() {
                return Err(codes::SPECIAL_TREE_OCCUPIED.with(format!("{card} cannot go to the Special Colour Tree: it already holds {tree}.")));
            }
            if orchard.has_colour_outside_bad_and_tree(card.colour()) {
                return Err(codes::SPECIAL_TREE_COLOUR_USED.with(format!(
                        "{card} cannot start a Special Colour Tree: a {} card already lies outside the Bad batch.",
                        card.colour()
                    )));
            }
            Ok(())
        }
        DraftCiderBatch::Unlucky => {
            let sweetness = cards.iter().map(|placed| placed.sweetness());
            let lowest = sweetness.clone().chain([card.sweetness()]).min();
            let highest = sweetness.chain([card.sweetness()]).max();
            match (lowest, highest) {
                (Some(lowest), Some(highest)) if highest - lowest > 1 => Err(codes::UNLUCKY_SPREAD.with(format!(
                        "{card} would spread the Unlucky batch's sweetness from {lowest} to {highest}, more than 1 apart."
                    ))),
                _ => Ok(()),
            }
        }
        DraftCiderBatch::Fortepiano => match last {
            Some(first_of_pair) if completes_pair && first_of_pair.height() == card.height() => {
                Err(codes::FORTEPIANO_SAME_HEIGHT.with(format!(
                        "{card} has the same height as {first_of_pair}, the card it would pair with in Fortepiano Height."
                    )))
            }
            _ => Ok(()),
        },
        DraftCiderBatch::SweetCouple => match last {
            Some(first_of_pair)
                if completes_pair && first_of_pair.sweetness() != card.sweetness() =>
            {
                Err(codes::SWEET_COUPLE_MISMATCH.with(format!(
                        "{card} does not have the sweetness of {first_of_pair}, the card it would pair with in Sweet Couple."
                    )))
            }
            _ => Ok(()),
        },
        DraftCiderBatch::Steady => match last {
            Some(previous) if previous.height().abs_diff(card.height()) > 1 => Err(codes::STEADY_STEP.with(format!(
                    "{card} is not within one height of {previous}, the previous card of Steady Height."
                ))),
            _ => Ok(()),
        },
        DraftCiderBatch::Bad => Ok(()),
    }
}

fn describe_chain(chain: DraftCiderFeatherChain) -> String {
    match (chain.sweetness, chain.height) {
        (Some(sweetness), Some(height)) => format!("sweetness {sweetness} or height {height}"),
        (Some(sweetness), None) => format!("sweetness {sweetness}"),
        (None, Some(height)) => format!("height {height}"),
        (None, None) => "none".to_string(),
    }
}

/// Points of one batch with the reason, as the score sheet shows them (§3).
pub fn batch_points(
    orchard: &DraftCiderOrchard,
    batch: DraftCiderBatch,
    options: &DraftCiderOptions,
) -> (i64, String) {
    let cards = orchard.cards(batch);
    let count = i64::try_from(cards.len()).unwrap_or(i64::MAX / 4);
    match batch {
        DraftCiderBatch::Monochrome => {
            let points = count * (count + 1) / 2;
            (
                points,
                format!("{}: triangle number {points}", cards_phrase(count)),
            )
        }
        DraftCiderBatch::Feather => {
            let points = count * (count - 1).max(0);
            (
                points,
                format!(
                    "{}: {count} × {} = {points}",
                    cards_phrase(count),
                    (count - 1).max(0)
                ),
            )
        }
        DraftCiderBatch::SpecialTree => match cards.first() {
            None => (0, "empty".to_string()),
            Some(tree) if orchard.has_colour_outside_bad_and_tree(tree.colour()) => {
                let points = match options.broken_tree {
                    DraftCiderBrokenTree::Zero => 0,
                    DraftCiderBrokenTree::MinusTwenty => -20,
                };
                (
                    points,
                    format!(
                        "broken: another {} card lies outside the Bad batch, {points}",
                        tree.colour()
                    ),
                )
            }
            Some(tree) => (
                20,
                format!("no other {} card outside the Bad batch: 20", tree.colour()),
            ),
        },
        DraftCiderBatch::Unlucky => {
            let total: i64 = cards.iter().map(|card| i64::from(card.sweetness())).sum();
            if total == 13 {
                let points = count * count;
                (
                    points,
                    format!(
                        "sweetness total 13 with {}: {count}² = {points}",
                        cards_phrase(count)
                    ),
                )
            } else {
                (0, format!("sweetness total {total}, not 13: 0"))
            }
        }
        DraftCiderBatch::Fortepiano => {
            let points: i64 = cards
                .chunks_exact(2)
                .map(|pair| 2 * i64::from(pair[0].height().abs_diff(pair[1].height())))
                .sum();
            let pairs = count / 2;
            (
                points,
                format!(
                    "{}, 2 × height difference each: {points}",
                    pairs_phrase(pairs)
                ),
            )
        }
        DraftCiderBatch::SweetCouple => {
            let pairs = count / 2;
            let points = 7 * pairs;
            (points, format!("{} × 7 = {points}", pairs_phrase(pairs)))
        }
        DraftCiderBatch::Steady => {
            let points = nth_odd_prime(cards.len());
            (
                points,
                format!(
                    "{}: odd prime number {count} of 3, 5, 7, 11, … = {points}",
                    cards_phrase(count)
                ),
            )
        }
        DraftCiderBatch::Bad => {
            let points = if options.easy { 0 } else { -count };
            let per_card = if options.easy { "0 (easy)" } else { "−1" };
            (
                points,
                format!("{} × {per_card} = {points}", cards_phrase(count)),
            )
        }
    }
}

fn cards_phrase(count: i64) -> String {
    if count == 1 {
        "1 card".to_string()
    } else {
        format!("{count} cards")
    }
}

fn pairs_phrase(pairs: impl Into<i64>) -> String {
    match pairs.into() {
        1 => "1 complete pair".to_string(),
        pairs => format!("{pairs} complete pairs"),
    }
}

/// The n-th odd prime (3, 5, 7, 11, …), 0 for n = 0 (§3 Steady Height).
pub fn nth_odd_prime(position: usize) -> i64 {
    if position == 0 {
        return 0;
    }
    let is_prime = |candidate: i64| {
        (2..)
            .take_while(|d| d * d <= candidate)
            .all(|d| candidate % d != 0)
    };
    (3..)
        .step_by(2)
        .filter(|candidate| is_prime(*candidate))
        .nth(position - 1)
        .unwrap_or(0)
}

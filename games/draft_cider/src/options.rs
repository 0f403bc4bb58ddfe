//! Setup options and the round structure they imply (rule book §2, §6).

use crate::codes;
use serde::{Deserialize, Serialize};
use umpire_domain::{SeatIndex, Violation};

/// The fewest and most players Draft & Cider is played with (§ header).
pub const FEWEST_PLAYERS: u8 = 1;
pub const MOST_PLAYERS: u8 = 6;

/// Which round structure is played (§2 ruling).
#[derive(
    get_size2::GetSize,
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DraftCiderRoundPreset {
    /// 4 rounds, 3 cards per player per round (2 with 3 or 6 players).
    #[default]
    Classic,
    /// 6 rounds × 2 cards per player, except 2 players: 4 rounds × 3.
    Current,
}

/// What a Special Colour Tree is worth when a card of its colour ended up
/// outside the Bad batch (§3 ruling).
#[derive(
    get_size2::GetSize,
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DraftCiderBrokenTree {
    /// The batch scores 0.
    #[default]
    Zero,
    /// The batch scores −20.
    MinusTwenty,
}

/// Setup options. Every field may be left out.
#[derive(
    get_size2::GetSize, Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(default, deny_unknown_fields)]
#[schema(example = json!({"players": 3, "rounds": "classic", "first_picker": 0, "easy": false, "broken_tree": "zero"}))]
pub struct DraftCiderOptions {
    /// Number of players, 1–6 (default 2).
    #[serde(default = "default_players")]
    #[schema(minimum = 1, maximum = 6, default = 2)]
    pub players: u8,
    /// Round structure preset (default `classic`).
    #[serde(default)]
    pub rounds: DraftCiderRoundPreset,
    /// The seat that picks first in round 1 (default 0); moves one seat
    /// clockwise each round.
    #[serde(default)]
    pub first_picker: u8,
    /// Easy mode: the Bad batch scores 0 per card instead of −1.
    #[serde(default)]
    pub easy: bool,
    /// What a broken Special Colour Tree scores (default `zero`).
    #[serde(default)]
    pub broken_tree: DraftCiderBrokenTree,
}

fn default_players() -> u8 {
    2
}

impl Default for DraftCiderOptions {
    fn default() -> Self {
        DraftCiderOptions {
            players: default_players(),
            rounds: DraftCiderRoundPreset::default(),
            first_picker: 0,
            easy: false,
            broken_tree: DraftCiderBrokenTree::default(),
        }
    }
}

/// The numbers in effect for a game: how many rounds and how many cards each
/// player picks per round (§2 ruling).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundNumbers {
    pub rounds: u8,
    pub cards_per_player: u8,
}

impl RoundNumbers {
    pub fn for_options(options: &DraftCiderOptions) -> Self {
        let players = options.players;
        match options.rounds {
            DraftCiderRoundPreset::Classic => RoundNumbers {
                rounds: 4,
                cards_per_player: if players == 3 || players == 6 { 2 } else { 3 },
            },
            DraftCiderRoundPreset::Current if players == 2 => RoundNumbers {
                rounds: 4,
                cards_per_player: 3,
            },
            DraftCiderRoundPreset::Current => RoundNumbers {
                rounds: 6,
                cards_per_player: 2,
            },
        }
    }
}

/// Refuses a player count outside 1–6 or a first picker who is not a seat.
pub fn validate(options: DraftCiderOptions) -> Result<DraftCiderOptions, Violation> {
    if !(FEWEST_PLAYERS..=MOST_PLAYERS).contains(&options.players) {
        return Err(codes::INVALID_PLAYERS.with(format!(
            "`players` must be between {FEWEST_PLAYERS} and {MOST_PLAYERS}, not {}.",
            options.players
        )));
    }
    if options.first_picker >= options.players {
        return Err(codes::INVALID_FIRST_PICKER.with(format!(
            "`first_picker` {} is not one of the seats 0–{}.",
            options.first_picker,
            options.players - 1
        )));
    }
    Ok(options)
}

/// The seats in clockwise order, `0..players`; an out-of-range count is
/// clamped so that this never fails on unvalidated options.
pub fn seats(options: &DraftCiderOptions) -> Vec<SeatIndex> {
    let players = options.players.clamp(FEWEST_PLAYERS, MOST_PLAYERS);
    (0..players).map(SeatIndex).collect()
}

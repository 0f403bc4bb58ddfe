//! The folded state and the questions the rules ask of it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use umpire_domain::memory::btree_map_bytes;
use utoipa::ToSchema;

use crate::cards::ArboretumCard;
use crate::cells::ArboretumCell;
use crate::model::{ArboretumGroup, ArboretumOptions, ArboretumPlan, ArboretumSeat, ArboretumTurn};

/// Parrots each seat starts with (§1).
pub const STARTING_PARROTS: u8 = 6;
/// Parrots the round-1 starting player may bid with (§3.2).
pub const FIRST_ROUND_STARTER_PARROTS: u8 = 5;
/// An ad board holds at most this many cards (§1).
pub const AD_BOARD_CAPACITY: usize = 7;
/// Turns played per round (§3.3).
pub const TURNS_PER_ROUND: usize = 9;
/// The game ends after this round (§3).
pub const LAST_ROUND: u8 = 11;

/// Where the game stands.
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ArboretumPhase {
    /// The DM Advantage holder picks round 1's starting player.
    ChoosingStart,
    Bidding,
    Playing,
    /// Between `round_ended` and the next `round_started` (never seen
    /// between actions: `decide` emits both together).
    RoundOver,
    Finished,
}

impl ArboretumPhase {
    pub fn name(self) -> &'static str {
        match self {
            ArboretumPhase::ChoosingStart => "choosing_start",
            ArboretumPhase::Bidding => "bidding",
            ArboretumPhase::Playing => "playing",
            ArboretumPhase::RoundOver => "round_over",
            ArboretumPhase::Finished => "finished",
        }
    }
}

/// One seat's personal area.
#[derive(get_size2::GetSize, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerArea {
    pub parrots: u8,
    #[get_size(size_fn = btree_map_bytes)]
    pub arboretum: BTreeMap<ArboretumCell, ArboretumCard>,
    pub ad_board: Vec<ArboretumCard>,
}

impl Default for PlayerArea {
    fn default() -> Self {
        PlayerArea {
            parrots: STARTING_PARROTS,
            arboretum: BTreeMap::new(),
            ad_board: Vec::new(),
        }
    }
}

impl PlayerArea {
    pub fn arboretum_is_full(&self) -> bool {
        self.arboretum.len() >= ArboretumCell::all().count()
    }

    /// Why `cell` cannot take a card, if it cannot (§4 planting rules).
    pub fn planting_problem(&self, cell: ArboretumCell) -> Option<PlantingProblem> {
        if self.arboretum.contains_key(&cell) {
            return Some(PlantingProblem::Occupied);
        }
        // The first card goes anywhere; later ones must touch a planted card.
        let touches_planted = cell
            .neighbours()
            .any(|neighbour| self.arboretum.contains_key(&neighbour));
        if !self.arboretum.is_empty() && !touches_planted {
            return Some(PlantingProblem::NotAdjacent);
        }
        None
    }

    /// Every cell a card may be planted on now.
    pub fn plantable_cells(&self) -> Vec<ArboretumCell> {
        ArboretumCell::all()
            .filter(|cell| self.planting_problem(*cell).is_none())
            .collect()
    }

    pub fn ad_board_total(&self) -> u32 {
        self.ad_board
            .iter()
            .map(|card| u32::from(card.number()))
            .sum()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlantingProblem {
    Occupied,
    NotAdjacent,
}

/// Which once-per-round special actions were taken this round, and by whom.
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
pub struct ArboretumSpecials {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dig_taken_by: Option<ArboretumSeat>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hire_taken_by: Option<ArboretumSeat>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_taken_by: Option<ArboretumSeat>,
}

/// Everything the events have established. Fields are public so tests can
/// build scoring positions directly; only `apply` changes a live state.
#[derive(get_size2::GetSize, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArboretumState {
    pub options: ArboretumOptions,
    /// The recorded shuffled deck, umpire-only; `dealt` cards are gone.
    pub deck: Vec<ArboretumCard>,
    pub dealt: usize,
    pub phase: ArboretumPhase,
    /// 0 before round 1 starts.
    pub round: u8,
    pub starting_player: Option<ArboretumSeat>,
    pub players: [PlayerArea; 2],
    pub offering_area: Vec<ArboretumCard>,
    pub refuse_pile: Vec<ArboretumCard>,
    pub out_of_game: Vec<ArboretumCard>,
    /// This round's bids; secret until both are in.
    pub bids: [Option<Vec<ArboretumGroup>>; 2],
    pub turn_order: Vec<ArboretumTurn>,
    /// Turns past the ninth this round, shown but never played.
    pub dropped_turns: Vec<ArboretumTurn>,
    /// Index of the turn being played in `turn_order`.
    pub next_turn: usize,
    /// Seats that skipped (or were skipped for) the rest of this round.
    pub forfeited: [bool; 2],
    pub specials: ArboretumSpecials,
}

impl ArboretumState {
    pub fn new(options: ArboretumOptions) -> Self {
        ArboretumState {
            options,
            deck: Vec::new(),
            dealt: 0,
            phase: ArboretumPhase::ChoosingStart,
            round: 0,
            starting_player: None,
            players: [PlayerArea::default(), PlayerArea::default()],
            offering_area: Vec::new(),
            refuse_pile: Vec::new(),
            out_of_game: Vec::new(),
            bids: [None, None],
            turn_order: Vec::new(),
            dropped_turns: Vec::new(),
            next_turn: 0,
            forfeited: [false, false],
            specials: ArboretumSpecials::default(),
        }
    }

    pub fn player(&self, seat: ArboretumSeat) -> &PlayerArea {
        &self.players[seat.index()]
    }

    pub fn player_mut(&mut self, seat: ArboretumSeat) -> &mut PlayerArea {
        &mut self.players[seat.index()]
    }

    /// The turn being played, if the round is in its playing phase.
    pub fn current_turn(&self) -> Option<ArboretumTurn> {
        if self.phase != ArboretumPhase::Playing {
            return None;
        }
        self.turn_order.get(self.next_turn).copied()
    }

    /// Parrots `seat` may bid with this round: all of them, except the
    /// round-1 starting player who may use only 5 (§3.2).
    pub fn usable_parrots(&self, seat: ArboretumSeat) -> u8 {
        let parrots = self.player(seat).parrots;
        if self.round == 1 && self.starting_player == Some(seat) {
            parrots.min(FIRST_ROUND_STARTER_PARROTS)
        } else {
            parrots
        }
    }

    /// Cards dealt at the start of `round` (§3.1).
    pub fn deal_size(round: u8) -> usize {
        match round {
            0..=5 => 5,
            6..=8 => 6,
            _ => 7,
        }
    }

    /// Whether `seat` has any action a turn with `plan` allows (§3.4, §4).
    pub fn has_legal_action(&self, seat: ArboretumSeat, plan: ArboretumPlan) -> bool {
        if self.specials.start_taken_by.is_none() {
            return true;
        }
        let player = self.player(seat);
        match plan {
            ArboretumPlan::Garden => {
                let can_plant = !self.offering_area.is_empty();
                let can_dig = self.specials.dig_taken_by.is_none() && !self.refuse_pile.is_empty();
                (can_plant || can_dig) && !player.arboretum_is_full()
            }
            ArboretumPlan::Bulletin => {
                let can_take = !self.offering_area.is_empty();
                let can_hire = self.specials.hire_taken_by.is_none()
                    && player.ad_board_total() > u32::from(player.parrots);
                can_take || can_hire
            }
        }
    }
}

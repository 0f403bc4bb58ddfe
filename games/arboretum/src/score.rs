//! Final scoring (§5): parrots, the starting player, suit rights from the ad
//! boards and the best path per suit in each arboretum.

use std::collections::BTreeMap;

use serde::Serialize;
use utoipa::ToSchema;

use crate::cards::{ArboretumCard, ArboretumSuit};
use crate::cells::ArboretumCell;
use crate::model::ArboretumSeat;
use crate::state::{ArboretumPhase, ArboretumState, PlayerArea};

/// The whole score sheet; everything on it is public (§6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct ArboretumScore {
    /// True once round 11 has ended; before that the sheet is provisional.
    #[serde(rename = "final")]
    pub is_final: bool,
    pub red: ArboretumSeatScore,
    pub blue: ArboretumSeatScore,
    /// The winner once the game is over (ties go to the DM Advantage holder).
    pub winners: Vec<ArboretumSeat>,
    pub dm_advantage: ArboretumSeat,
    /// Why the winner won.
    pub verdict: String,
}

/// One seat's points, part by part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct ArboretumSeatScore {
    pub parrots: u8,
    /// 2 × the parrot difference for the seat with more parrots, else 0.
    pub parrot_points: i64,
    /// Whether the seat is the starting player (after round 11 when final).
    pub starting_player: bool,
    pub starting_player_points: i64,
    /// One entry per suit, `P` to `W`.
    pub suits: Vec<ArboretumSuitScore>,
    pub suit_points: i64,
    pub total: i64,
}

/// One suit for one seat: the right to score it, and the best path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct ArboretumSuitScore {
    pub suit: ArboretumSuit,
    /// Sum of the seat's ad-board numbers of the suit, after cancellation.
    pub ad_board_sum: u32,
    /// The seat's 8 counted 0 because the opponent's ad board holds the 1.
    pub eight_cancelled: bool,
    /// The larger sum, or an equal one, gives the right to score the suit.
    pub has_right: bool,
    /// The best path in the arboretum, shown even without the right (then
    /// it scores nothing). Absent when the arboretum has no path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_path: Option<ArboretumPath>,
    pub points: i64,
}

/// A scoring path and how its value is made up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct ArboretumPath {
    pub cells: Vec<ArboretumCell>,
    pub cards: Vec<ArboretumCard>,
    pub length: u8,
    /// Length ≥ 4 and every card of the suit: each card counts 2.
    pub doubled: bool,
    pub starts_with_one: bool,
    pub ends_with_eight: bool,
    /// Length (doubled or not) + 1 for starting with 1 + 2 for ending with 8.
    pub value: i64,
}

/// What a path of these cards is worth for `suit` (§5). The caller
/// guarantees the path is valid (≥ 2 cards, first and last of the suit).
fn path_value(cards: &[ArboretumCard], suit: ArboretumSuit) -> (i64, bool, bool, bool) {
    let length = i64::try_from(cards.len()).unwrap_or(i64::MAX);
    let doubled = cards.len() >= 4 && cards.iter().all(|card| card.suit() == suit);
    let starts_with_one = cards.first().is_some_and(|card| card.number() == 1);
    let ends_with_eight = cards.last().is_some_and(|card| card.number() == 8);
    let value = if doubled { length * 2 } else { length }
        + i64::from(starts_with_one)
        + if ends_with_eight { 2 } else { 0 };
    (value, doubled, starts_with_one, ends_with_eight)
}

/// The best path for `suit`: highest value; between equal values the one
/// whose cell sequence comes first (cells ordered A1, A2, …, F6, and a
/// path before any longer path it begins). `None` when there is no path.
pub fn best_path(
    arboretum: &BTreeMap<ArboretumCell, ArboretumCard>,
    suit: ArboretumSuit,
) -> Option<ArboretumPath> {
    let mut best: Option<(i64, Vec<ArboretumCell>)> = None;
    for (cell, card) in arboretum {
        if card.suit() == suit {
            let mut path = vec![*cell];
            extend_paths(arboretum, suit, &mut path, &mut best);
        }
    }
    let (_, cells) = best?;
    let cards: Vec<ArboretumCard> = cells
        .iter()
        .filter_map(|cell| arboretum.get(cell).copied())
        .collect();
    let (value, doubled, starts_with_one, ends_with_eight) = path_value(&cards, suit);
    Some(ArboretumPath {
        length: u8::try_from(cells.len()).unwrap_or(u8::MAX),
        cells,
        cards,
        doubled,
        starts_with_one,
        ends_with_eight,
        value,
    })
}

/// Depth-first search over strictly increasing neighbours. Numbers strictly
/// increase along a path, so it is at most 8 long and never revisits a cell.
fn extend_paths(
    arboretum: &BTreeMap<ArboretumCell, ArboretumCard>,
    suit: ArboretumSuit,
    path: &mut Vec<ArboretumCell>,
    best: &mut Option<(i64, Vec<ArboretumCell>)>,
) {
    let Some(last_cell) = path.last().copied() else {
        return;
    };
    let Some(last_card) = arboretum.get(&last_cell).copied() else {
        return;
    };
    if path.len() >= 2 && last_card.suit() == suit {
        let cards: Vec<ArboretumCard> = path
            .iter()
            .filter_map(|cell| arboretum.get(cell).copied())
            .collect();
        let (value, ..) = path_value(&cards, suit);
        let better = match best {
            None => true,
            Some((best_value, best_cells)) => {
                value > *best_value || (value == *best_value && path[..] < best_cells[..])
            }
        };
        if better {
            *best = Some((value, path.clone()));
        }
    }
    for neighbour in last_cell.neighbours() {
        if let Some(card) = arboretum.get(&neighbour) {
            if card.number() > last_card.number() {
                path.push(neighbour);
                extend_paths(arboretum, suit, path, best);
                path.pop();
            }
        }
    }
}

/// A seat's ad-board sum for `suit`: its 8 counts 0 when the opponent's
/// board holds that suit's 1 (§5). Returns the sum and whether an 8 was
/// cancelled.
pub fn ad_board_sum(own: &PlayerArea, opponent: &PlayerArea, suit: ArboretumSuit) -> (u32, bool) {
    let opponent_holds_one = opponent
        .ad_board
        .iter()
        .any(|card| card.suit() == suit && card.number() == 1);
    let mut cancelled = false;
    let mut sum = 0;
    for card in own.ad_board.iter().filter(|card| card.suit() == suit) {
        if card.number() == 8 && opponent_holds_one {
            cancelled = true;
        } else {
            sum += u32::from(card.number());
        }
    }
    (sum, cancelled)
}

fn seat_score(state: &ArboretumState, seat: ArboretumSeat) -> ArboretumSeatScore {
    let own = state.player(seat);
    let opponent = state.player(seat.other());
    let parrot_difference = i64::from(own.parrots) - i64::from(opponent.parrots);
    let parrot_points = 2 * parrot_difference.max(0);
    let starting_player = state.starting_player == Some(seat);
    let suits: Vec<ArboretumSuitScore> = ArboretumSuit::ALL
        .into_iter()
        .map(|suit| {
            let (sum, eight_cancelled) = ad_board_sum(own, opponent, suit);
            let (opponent_sum, _) = ad_board_sum(opponent, own, suit);
            let has_right = sum >= opponent_sum;
            let best_path = best_path(&own.arboretum, suit);
            let points = match (&best_path, has_right) {
                (Some(path), true) => path.value,
                _ => 0,
            };
            ArboretumSuitScore {
                suit,
                ad_board_sum: sum,
                eight_cancelled,
                has_right,
                best_path,
                points,
            }
        })
        .collect();
    let suit_points = suits.iter().map(|suit| suit.points).sum();
    let starting_player_points = i64::from(starting_player);
    ArboretumSeatScore {
        parrots: own.parrots,
        parrot_points,
        starting_player,
        starting_player_points,
        suits,
        suit_points,
        total: parrot_points + starting_player_points + suit_points,
    }
}

/// Totals indexed by seat, final or provisional.
pub fn seat_totals(state: &ArboretumState) -> [i64; 2] {
    ArboretumSeat::BOTH.map(|seat| seat_score(state, seat).total)
}

/// The seat with the higher total; equal totals go to the DM Advantage
/// holder (§5).
pub fn final_winner(state: &ArboretumState) -> ArboretumSeat {
    let [red, blue] = seat_totals(state);
    match red.cmp(&blue) {
        std::cmp::Ordering::Greater => ArboretumSeat::Red,
        std::cmp::Ordering::Less => ArboretumSeat::Blue,
        std::cmp::Ordering::Equal => state.options.dm_advantage,
    }
}

/// The full score sheet. Everything it uses is public, so every viewer
/// gets the same sheet.
pub fn score_sheet(state: &ArboretumState) -> ArboretumScore {
    let red = seat_score(state, ArboretumSeat::Red);
    let blue = seat_score(state, ArboretumSeat::Blue);
    let is_final = state.phase == ArboretumPhase::Finished;
    let dm_advantage = state.options.dm_advantage;
    let leader = final_winner(state);
    let how = if red.total == blue.total {
        format!(
            "{} all; the DM Advantage holder {dm_advantage:?} takes the tie",
            red.total
        )
    } else {
        format!(
            "{} to {}",
            red.total.max(blue.total),
            red.total.min(blue.total)
        )
    };
    let (winners, verdict) = if is_final {
        (vec![leader], format!("{leader:?} wins, {how}."))
    } else {
        (
            Vec::new(),
            format!("Provisional: {leader:?} would win, {how}."),
        )
    };
    ArboretumScore {
        is_final,
        red,
        blue,
        winners,
        dm_advantage,
        verdict,
    }
}

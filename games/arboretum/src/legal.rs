//! Legal actions: complete for turns, a varied sample for bids.

use umpire_domain::Actor;

use crate::model::{ArboretumAction, ArboretumGroup, ArboretumPlan, ArboretumSeat};
use crate::state::{ArboretumPhase, ArboretumState, AD_BOARD_CAPACITY};

pub fn legal_actions(state: &ArboretumState, actor: Actor<ArboretumSeat>) -> Vec<ArboretumAction> {
    match actor {
        Actor::Umpire => umpire_actions(state),
        Actor::Seat(seat) => seat_actions(state, seat),
    }
}

fn umpire_actions(state: &ArboretumState) -> Vec<ArboretumAction> {
    match state.phase {
        ArboretumPhase::Bidding => ArboretumSeat::BOTH
            .into_iter()
            .filter(|seat| state.bids[seat.index()].is_none())
            .map(|seat| ArboretumAction::Timeout { seat })
            .collect(),
        ArboretumPhase::Playing => state
            .current_turn()
            .map(|turn| ArboretumAction::Timeout { seat: turn.seat })
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

fn seat_actions(state: &ArboretumState, seat: ArboretumSeat) -> Vec<ArboretumAction> {
    match state.phase {
        ArboretumPhase::ChoosingStart if seat == state.options.dm_advantage => ArboretumSeat::BOTH
            .into_iter()
            .map(|chosen| ArboretumAction::ChooseStart { seat: chosen })
            .collect(),
        ArboretumPhase::Bidding => sample_bids(state.usable_parrots(seat))
            .into_iter()
            .map(|groups| ArboretumAction::Bid { groups })
            .collect(),
        ArboretumPhase::Playing => match state.current_turn() {
            Some(turn) if turn.seat == seat => turn_actions(state, seat, turn.plan),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// A varied sample of valid bids: none, one big group, many single
/// parrots, and mixes in between, each with several plan patterns.
fn sample_bids(usable: u8) -> Vec<Vec<ArboretumGroup>> {
    let mut size_lists: Vec<Vec<u8>> = vec![Vec::new()];
    if usable >= 1 {
        size_lists.push(vec![usable]);
        size_lists.push(vec![1; usize::from(usable.min(9))]);
        size_lists.push(vec![1; usize::from(usable.min(4))]);
    }
    if usable >= 3 {
        // A large lead group, then singles.
        let lead = usable / 2;
        let mut sizes = vec![lead];
        sizes.extend(std::iter::repeat_n(1, usize::from(usable - lead)));
        size_lists.push(sizes);
        size_lists.push(vec![2, 1]);
    }
    if usable >= 5 {
        size_lists.push(vec![2, 2, 1]);
        size_lists.push(vec![3, 2]);
    }
    let plan_patterns: [fn(usize) -> ArboretumPlan; 3] = [
        |_| ArboretumPlan::Garden,
        |_| ArboretumPlan::Bulletin,
        |index| {
            if index % 2 == 0 {
                ArboretumPlan::Bulletin
            } else {
                ArboretumPlan::Garden
            }
        },
    ];
    let mut bids = Vec::new();
    for sizes in size_lists {
        for pattern in plan_patterns {
            let bid: Vec<ArboretumGroup> = sizes
                .iter()
                .enumerate()
                .map(|(index, size)| ArboretumGroup {
                    size: *size,
                    plan: pattern(index),
                })
                .collect();
            if !bids.contains(&bid) {
                bids.push(bid);
            }
        }
    }
    bids
}

/// Every action the turn allows (§4), plus `skip`.
fn turn_actions(
    state: &ArboretumState,
    seat: ArboretumSeat,
    plan: ArboretumPlan,
) -> Vec<ArboretumAction> {
    let player = state.player(seat);
    let mut actions = Vec::new();
    match plan {
        ArboretumPlan::Garden => {
            let cells = if player.arboretum_is_full() {
                Vec::new()
            } else {
                player.plantable_cells()
            };
            for card in &state.offering_area {
                for cell in &cells {
                    actions.push(ArboretumAction::Plant {
                        card: *card,
                        cell: *cell,
                    });
                }
            }
            if state.specials.dig_taken_by.is_none() {
                for card in &state.refuse_pile {
                    for cell in &cells {
                        actions.push(ArboretumAction::Dig {
                            card: *card,
                            cell: *cell,
                        });
                    }
                }
            }
        }
        ArboretumPlan::Bulletin => {
            for card in &state.offering_area {
                if player.ad_board.len() < AD_BOARD_CAPACITY {
                    actions.push(ArboretumAction::Take {
                        card: *card,
                        discard: None,
                    });
                } else {
                    for discard in &player.ad_board {
                        actions.push(ArboretumAction::Take {
                            card: *card,
                            discard: Some(*discard),
                        });
                    }
                }
            }
            if state.specials.hire_taken_by.is_none() {
                let needed = u32::from(player.parrots) + 1;
                let board = &player.ad_board;
                // Every subset of at most seven cards: at most 127 hires.
                for mask in 1u32..(1 << board.len().min(AD_BOARD_CAPACITY)) {
                    let cards: Vec<_> = board
                        .iter()
                        .enumerate()
                        .filter(|(index, _)| mask & (1 << index) != 0)
                        .map(|(_, card)| *card)
                        .collect();
                    let total: u32 = cards.iter().map(|card| u32::from(card.number())).sum();
                    if total >= needed {
                        actions.push(ArboretumAction::Hire { cards });
                    }
                }
            }
        }
    }
    if state.specials.start_taken_by.is_none() {
        actions.push(ArboretumAction::Start);
    }
    actions.push(ArboretumAction::Skip);
    actions
}

//! The turn order fixed by the revealed bids (§3.3).

use std::collections::VecDeque;

use crate::model::{ArboretumGroup, ArboretumSeat, ArboretumTurn};
use crate::state::TURNS_PER_ROUND;

/// The played turns (at most nine) and the dropped ones after them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnOrder {
    pub played: Vec<ArboretumTurn>,
    pub dropped: Vec<ArboretumTurn>,
}

/// For each distinct group size, largest first, the seats alternate starting
/// from the starting player; once one seat has no group of that size left,
/// the other takes all of its remaining ones. Only the first nine turns play.
pub fn turn_order(
    starting_player: ArboretumSeat,
    red_bid: &[ArboretumGroup],
    blue_bid: &[ArboretumGroup],
) -> TurnOrder {
    let bid_of = |seat: ArboretumSeat| match seat {
        ArboretumSeat::Red => red_bid,
        ArboretumSeat::Blue => blue_bid,
    };
    let mut sizes: Vec<u8> = red_bid
        .iter()
        .chain(blue_bid)
        .map(|group| group.size)
        .collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes.dedup();

    let mut all_turns = Vec::new();
    for size in sizes {
        let mut queues: [VecDeque<ArboretumTurn>; 2] = ArboretumSeat::BOTH.map(|seat| {
            bid_of(seat)
                .iter()
                .enumerate()
                .filter(|(_, group)| group.size == size)
                .map(|(index, group)| ArboretumTurn {
                    seat,
                    group: u8::try_from(index).unwrap_or(u8::MAX),
                    size,
                    plan: group.plan,
                })
                .collect()
        });
        let mut seat = starting_player;
        while queues.iter().any(|queue| !queue.is_empty()) {
            if let Some(turn) = queues[seat.index()].pop_front() {
                all_turns.push(turn);
            }
            seat = seat.other();
        }
    }
    let dropped = all_turns.split_off(all_turns.len().min(TURNS_PER_ROUND));
    TurnOrder {
        played: all_turns,
        dropped,
    }
}

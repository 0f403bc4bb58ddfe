//! Every rule of the game: an action becomes events or a violation. The
//! automatic consequences (forced skips, end of round, next deal, game end)
//! are returned by the same call.

use umpire_domain::{Actor, Violation, ViolationKind};

use crate::apply::apply;
use crate::cards::ArboretumCard;
use crate::cells::ArboretumCell;
use crate::codes;
use crate::model::{
    ArboretumAction, ArboretumEvent, ArboretumGroup, ArboretumPlan, ArboretumRevealedBids,
    ArboretumSeat, ArboretumSkipReason, ArboretumTotals,
};
use crate::score::{final_winner, seat_totals};
use crate::state::{
    ArboretumPhase, ArboretumState, PlantingProblem, AD_BOARD_CAPACITY, LAST_ROUND,
};
use crate::turn_order::turn_order;

fn refuse<T>(kind: ViolationKind, message: String) -> Result<T, Violation> {
    Err(kind.with(message))
}

/// The state as the events so far leave it, and those events.
struct Outcome {
    state: ArboretumState,
    events: Vec<ArboretumEvent>,
}

impl Outcome {
    fn new(state: &ArboretumState) -> Self {
        Outcome {
            state: state.clone(),
            events: Vec::new(),
        }
    }

    fn emit(&mut self, event: ArboretumEvent) {
        apply(&mut self.state, &event);
        self.events.push(event);
    }
}

pub fn decide(
    state: &ArboretumState,
    actor: Actor<ArboretumSeat>,
    action: &ArboretumAction,
) -> Result<Vec<ArboretumEvent>, Violation> {
    if state.phase == ArboretumPhase::Finished {
        return refuse(
            codes::GAME_OVER,
            format!("The game ended after round {LAST_ROUND}; no action is possible."),
        );
    }
    let mut outcome = Outcome::new(state);
    match (actor, action) {
        (Actor::Seat(seat), ArboretumAction::Timeout { .. }) => {
            return refuse(
                codes::UMPIRE_ONLY,
                format!("Only the umpire may time a seat out, not {seat:?}."),
            );
        }
        (Actor::Umpire, ArboretumAction::Timeout { seat }) => timeout(&mut outcome, *seat)?,
        (Actor::Umpire, _) => {
            return refuse(
                codes::NOT_A_SEAT_ACTION,
                "The umpire may only send timeouts; seat actions come from seats.".into(),
            );
        }
        (Actor::Seat(seat), action) => seat_action(&mut outcome, seat, action)?,
    }
    Ok(outcome.events)
}

fn seat_action(
    outcome: &mut Outcome,
    seat: ArboretumSeat,
    action: &ArboretumAction,
) -> Result<(), Violation> {
    match action {
        ArboretumAction::ChooseStart { seat: chosen } => choose_start(outcome, seat, *chosen),
        ArboretumAction::Bid { groups } => bid(outcome, seat, groups),
        ArboretumAction::Timeout { .. } => refuse(
            codes::UMPIRE_ONLY,
            "Only the umpire may send a timeout.".into(),
        ),
        turn_action => play_turn(outcome, seat, turn_action),
    }
}

fn wrong_phase<T>(state: &ArboretumState, what: &str) -> Result<T, Violation> {
    refuse(
        codes::WRONG_PHASE,
        format!(
            "{what} is not possible while the game is in its {} phase.",
            state.phase.name()
        ),
    )
}

/// §2: the DM Advantage holder picks round 1's starting player; round 1
/// starts at once.
fn choose_start(
    outcome: &mut Outcome,
    seat: ArboretumSeat,
    chosen: ArboretumSeat,
) -> Result<(), Violation> {
    if outcome.state.phase != ArboretumPhase::ChoosingStart {
        return wrong_phase(&outcome.state, "Choosing the starting player");
    }
    let holder = outcome.state.options.dm_advantage;
    if seat != holder {
        return refuse(
            codes::NOT_YOUR_TURN_TO_CHOOSE_START,
            format!("Only the DM Advantage holder ({holder:?}) chooses the starting player."),
        );
    }
    outcome.emit(ArboretumEvent::StartingPlayerChosen { seat: chosen });
    start_round(outcome, 1, chosen);
    Ok(())
}

/// §3.1: a new round deals 5, 6 or 7 cards from the recorded deck.
fn start_round(outcome: &mut Outcome, round: u8, starting_player: ArboretumSeat) {
    outcome.emit(ArboretumEvent::RoundStarted {
        round,
        starting_player,
    });
    let deck = &outcome.state.deck;
    let from = outcome.state.dealt.min(deck.len());
    let to = from
        .saturating_add(ArboretumState::deal_size(round))
        .min(deck.len());
    let cards = deck.get(from..to).unwrap_or_default().to_vec();
    outcome.emit(ArboretumEvent::CardsDealt { round, cards });
}

/// §3.2: a secret bid, replaceable until both are in.
fn bid(
    outcome: &mut Outcome,
    seat: ArboretumSeat,
    groups: &[ArboretumGroup],
) -> Result<(), Violation> {
    let state = &outcome.state;
    if state.phase != ArboretumPhase::Bidding {
        return wrong_phase(state, "Bidding");
    }
    if let Some(position) = groups.iter().position(|group| group.size == 0) {
        return refuse(
            codes::BID_GROUP_EMPTY,
            format!(
                "Group {} has 0 parrots; every group needs at least one.",
                position + 1
            ),
        );
    }
    if let Some(pair) = groups.windows(2).find(|pair| pair[1].size > pair[0].size) {
        return refuse(
            codes::BID_NOT_NON_INCREASING,
            format!(
                "A group of {} follows a group of {}; sizes must not increase.",
                pair[1].size, pair[0].size
            ),
        );
    }
    let total: u32 = groups.iter().map(|group| u32::from(group.size)).sum();
    let usable = state.usable_parrots(seat);
    if total > u32::from(usable) {
        return refuse(
            codes::BID_TOO_MANY_PARROTS,
            format!("The bid uses {total} parrots but {seat:?} may use only {usable} this round."),
        );
    }
    let round = state.round;
    let replaced = state.bids[seat.index()].is_some();
    outcome.emit(ArboretumEvent::BidSubmitted {
        round,
        seat,
        replaced,
        groups: Some(groups.to_vec()),
    });
    reveal_if_both_bid(outcome);
    Ok(())
}

/// §3.2–3.3: the second bid reveals both and fixes the turn order.
fn reveal_if_both_bid(outcome: &mut Outcome) {
    let [Some(red), Some(blue)] = outcome.state.bids.clone() else {
        return;
    };
    let starting_player = outcome
        .state
        .starting_player
        .unwrap_or(outcome.state.options.dm_advantage);
    let order = turn_order(starting_player, &red, &blue);
    outcome.emit(ArboretumEvent::BidsRevealed {
        round: outcome.state.round,
        bids: ArboretumRevealedBids { red, blue },
        turn_order: order.played,
        dropped_turns: order.dropped,
    });
    advance(outcome);
}

/// Moves past turns that cannot be played (forfeited, or no legal action),
/// ends the round when the turn order is exhausted, and starts the next
/// round or ends the game (§3.4, §3.5).
fn advance(outcome: &mut Outcome) {
    // Each pass emits at least one event that moves the turn on or leaves
    // the playing phase, so the loop ends within the (≤ 9) turns.
    while outcome.state.phase == ArboretumPhase::Playing {
        let Some(turn) = outcome.state.current_turn() else {
            end_round(outcome);
            return;
        };
        let position = u8::try_from(outcome.state.next_turn + 1).unwrap_or(u8::MAX);
        let reason = if outcome.state.forfeited[turn.seat.index()] {
            ArboretumSkipReason::Forfeited
        } else if !outcome.state.has_legal_action(turn.seat, turn.plan) {
            ArboretumSkipReason::NoLegalAction
        } else {
            return;
        };
        outcome.emit(ArboretumEvent::TurnSkipped {
            seat: turn.seat,
            turn: position,
            reason,
        });
    }
}

/// §3.5: refuse pile out of the game, offering area to the refuse pile,
/// the next starting player; then the next round or the final score.
fn end_round(outcome: &mut Outcome) {
    let state = &outcome.state;
    let round = state.round;
    let next_starting_player = state
        .specials
        .start_taken_by
        .or(state.starting_player)
        .unwrap_or(state.options.dm_advantage);
    outcome.emit(ArboretumEvent::RoundEnded {
        round,
        removed_from_game: state.refuse_pile.clone(),
        moved_to_refuse: state.offering_area.clone(),
        next_starting_player,
    });
    if round >= LAST_ROUND {
        let totals = seat_totals(&outcome.state);
        let winner = final_winner(&outcome.state);
        outcome.emit(ArboretumEvent::GameEnded {
            totals: ArboretumTotals {
                red: totals[ArboretumSeat::Red.index()],
                blue: totals[ArboretumSeat::Blue.index()],
            },
            winner,
        });
    } else {
        start_round(outcome, round + 1, next_starting_player);
    }
}

/// Umpire timeouts (§3.2, §3.4).
fn timeout(outcome: &mut Outcome, seat: ArboretumSeat) -> Result<(), Violation> {
    let state = &outcome.state;
    match state.phase {
        ArboretumPhase::Bidding => {
            if state.bids[seat.index()].is_some() {
                return refuse(
                    codes::TIMEOUT_AFTER_BID,
                    format!(
                        "{seat:?} has already bid this round and cannot be timed out of bidding."
                    ),
                );
            }
            let round = state.round;
            outcome.emit(ArboretumEvent::BidTimedOut { round, seat });
            reveal_if_both_bid(outcome);
            Ok(())
        }
        ArboretumPhase::Playing => {
            let current = state.current_turn().map(|turn| turn.seat);
            if current != Some(seat) {
                return refuse(
                    codes::TIMEOUT_NOT_THEIR_TURN,
                    format!("It is not {seat:?}'s turn, so its clock is not running."),
                );
            }
            skip_rest_of_round(outcome, seat, ArboretumSkipReason::TimedOut);
            Ok(())
        }
        _ => wrong_phase(state, "A timeout"),
    }
}

fn skip_rest_of_round(outcome: &mut Outcome, seat: ArboretumSeat, reason: ArboretumSkipReason) {
    let turn = u8::try_from(outcome.state.next_turn + 1).unwrap_or(u8::MAX);
    outcome.emit(ArboretumEvent::TurnSkipped { seat, turn, reason });
    advance(outcome);
}

fn action_name(action: &ArboretumAction) -> &'static str {
    match action {
        ArboretumAction::ChooseStart { .. } => "choose_start",
        ArboretumAction::Bid { .. } => "bid",
        ArboretumAction::Plant { .. } => "plant",
        ArboretumAction::Dig { .. } => "dig",
        ArboretumAction::Take { .. } => "take",
        ArboretumAction::Hire { .. } => "hire",
        ArboretumAction::Start => "start",
        ArboretumAction::Skip => "skip",
        ArboretumAction::Timeout { .. } => "timeout",
    }
}

/// §3.4 and §4: one action on the seat's turn, allowed by the group's plan.
fn play_turn(
    outcome: &mut Outcome,
    seat: ArboretumSeat,
    action: &ArboretumAction,
) -> Result<(), Violation> {
    let state = &outcome.state;
    let name = action_name(action);
    if state.phase != ArboretumPhase::Playing {
        return wrong_phase(state, &format!("A {name} action"));
    }
    let Some(turn) = state.current_turn() else {
        return wrong_phase(state, &format!("A {name} action"));
    };
    if turn.seat != seat {
        return refuse(
            codes::NOT_YOUR_TURN,
            format!("It is {:?}'s turn, not {seat:?}'s.", turn.seat),
        );
    }
    let needed_plan = match action {
        ArboretumAction::Plant { .. } | ArboretumAction::Dig { .. } => Some(ArboretumPlan::Garden),
        ArboretumAction::Take { .. } | ArboretumAction::Hire { .. } => {
            Some(ArboretumPlan::Bulletin)
        }
        _ => None,
    };
    if let Some(needed_plan) = needed_plan {
        if needed_plan != turn.plan {
            return refuse(
                codes::PLAN_MISMATCH,
                format!(
                    "{name} needs a {needed_plan:?} group, but this turn's group planned {:?}.",
                    turn.plan
                ),
            );
        }
    }
    let event = match action {
        ArboretumAction::Plant { card, cell } => plant(state, seat, *card, *cell)?,
        ArboretumAction::Dig { card, cell } => dig(state, seat, *card, *cell)?,
        ArboretumAction::Take { card, discard } => take(state, seat, *card, *discard)?,
        ArboretumAction::Hire { cards } => hire(state, seat, cards)?,
        ArboretumAction::Start => {
            special_available(state, state.specials.start_taken_by, "start")?;
            ArboretumEvent::StartTaken { seat }
        }
        ArboretumAction::Skip => {
            skip_rest_of_round(outcome, seat, ArboretumSkipReason::Skipped);
            return Ok(());
        }
        other => return wrong_phase(state, &format!("A {} action", action_name(other))),
    };
    outcome.emit(event);
    advance(outcome);
    Ok(())
}

/// §4 ruling: dig, hire and start once per round across both seats.
fn special_available(
    state: &ArboretumState,
    taken_by: Option<ArboretumSeat>,
    name: &str,
) -> Result<(), Violation> {
    match taken_by {
        Some(by) => refuse(
            codes::SPECIAL_ALREADY_TAKEN,
            format!(
                "{by:?} already took the {name} action in round {}.",
                state.round
            ),
        ),
        None => Ok(()),
    }
}

fn check_planting(
    state: &ArboretumState,
    seat: ArboretumSeat,
    cell: ArboretumCell,
) -> Result<(), Violation> {
    match state.player(seat).planting_problem(cell) {
        Some(PlantingProblem::Occupied) => refuse(
            codes::CELL_OCCUPIED,
            format!("{cell} already holds a tree."),
        ),
        Some(PlantingProblem::NotAdjacent) => refuse(
            codes::CELL_NOT_ADJACENT,
            format!("{cell} is not orthogonally adjacent to any planted card."),
        ),
        None => Ok(()),
    }
}

fn check_not_full(state: &ArboretumState, seat: ArboretumSeat) -> Result<(), Violation> {
    if state.player(seat).arboretum_is_full() {
        return refuse(
            codes::ARBORETUM_FULL,
            format!("{seat:?}'s arboretum is full: all 36 cells hold trees."),
        );
    }
    Ok(())
}

fn plant(
    state: &ArboretumState,
    seat: ArboretumSeat,
    card: ArboretumCard,
    cell: ArboretumCell,
) -> Result<ArboretumEvent, Violation> {
    check_not_full(state, seat)?;
    if !state.offering_area.contains(&card) {
        return refuse(
            codes::CARD_NOT_IN_OFFERING,
            format!("{card} is not in the offering area."),
        );
    }
    check_planting(state, seat, cell)?;
    Ok(ArboretumEvent::CardPlanted { seat, card, cell })
}

fn dig(
    state: &ArboretumState,
    seat: ArboretumSeat,
    card: ArboretumCard,
    cell: ArboretumCell,
) -> Result<ArboretumEvent, Violation> {
    special_available(state, state.specials.dig_taken_by, "dig")?;
    check_not_full(state, seat)?;
    if !state.refuse_pile.contains(&card) {
        return refuse(
            codes::CARD_NOT_IN_REFUSE,
            format!("{card} is not in the refuse pile."),
        );
    }
    check_planting(state, seat, cell)?;
    Ok(ArboretumEvent::CardDug { seat, card, cell })
}

fn take(
    state: &ArboretumState,
    seat: ArboretumSeat,
    card: ArboretumCard,
    discard: Option<ArboretumCard>,
) -> Result<ArboretumEvent, Violation> {
    if !state.offering_area.contains(&card) {
        return refuse(
            codes::CARD_NOT_IN_OFFERING,
            format!("{card} is not in the offering area."),
        );
    }
    let board = &state.player(seat).ad_board;
    let overfull = board.len() + 1 > AD_BOARD_CAPACITY;
    match (overfull, discard) {
        (true, None) => refuse(codes::DISCARD_REQUIRED, format!("Taking {card} puts an eighth card on the ad board, so a discard is required.")),
        (true, Some(discard)) if discard == card => refuse(codes::DISCARD_IS_TAKEN_CARD, format!("{card} was just taken and cannot be the discard.")),
        (true, Some(discard)) if !board.contains(&discard) => refuse(codes::CARD_NOT_ON_AD_BOARD, format!("{discard} is not on {seat:?}'s ad board.")),
        (false, Some(discard)) => refuse(codes::DISCARD_NOT_ALLOWED, format!(
                "The ad board holds {} cards after taking {card}, so {discard} may not be discarded.",
                board.len() + 1
            )),
        _ => Ok(ArboretumEvent::CardTaken {
            seat,
            card,
            discard,
        }),
    }
}

fn hire(
    state: &ArboretumState,
    seat: ArboretumSeat,
    cards: &[ArboretumCard],
) -> Result<ArboretumEvent, Violation> {
    special_available(state, state.specials.hire_taken_by, "hire")?;
    let player = state.player(seat);
    let mut remaining = player.ad_board.clone();
    for card in cards {
        match remaining.iter().position(|held| held == card) {
            Some(position) => {
                remaining.remove(position);
            }
            None => {
                let problem = if player.ad_board.contains(card) {
                    format!("{card} is listed more than once for hiring.")
                } else {
                    format!("{card} is not on {seat:?}'s ad board.")
                };
                return refuse(codes::CARD_NOT_ON_AD_BOARD, problem);
            }
        }
    }
    let total: u32 = cards.iter().map(|card| u32::from(card.number())).sum();
    let needed = u32::from(player.parrots) + 1;
    if total < needed {
        return refuse(codes::HIRE_TOTAL_TOO_LOW, format!("The discarded cards total {total}, but hiring with {} parrots needs at least {needed}.", player.parrots));
    }
    Ok(ArboretumEvent::ParrotHired {
        seat,
        cards: cards.to_vec(),
        parrots: player.parrots.saturating_add(1),
    })
}

//! Every rule: setup, turning an action into events or a violation, who must
//! act, and the legal actions (rule book §2–§4).

use rand::seq::SliceRandom;
use umpire_domain::{Actor, GameRng, SeatIndex, Status, Violation};

use crate::apply::apply;
use crate::batches::{check_placement, DraftCiderBatch};
use crate::cards::{full_deck, DraftCiderCard};
use crate::codes;
use crate::messages::{DraftCiderAction, DraftCiderEvent};
use crate::options::{DraftCiderOptions, RoundNumbers};
use crate::score::{seat_scores, winners};
use crate::state::DraftCiderState;

/// The setup record, the shuffled deck (umpire-only) and the first round's deal.
pub fn setup(options: &DraftCiderOptions, rng: &mut GameRng) -> Vec<DraftCiderEvent> {
    let numbers = RoundNumbers::for_options(options);
    let mut deck = full_deck();
    deck.shuffle(rng);
    let mut events = vec![
        DraftCiderEvent::GameSetUp {
            options: options.clone(),
            players: u8::try_from(crate::options::seats(options).len()).unwrap_or(1),
            rounds: numbers.rounds,
            cards_per_player: numbers.cards_per_player,
        },
        DraftCiderEvent::DeckShuffled { deck },
    ];
    let mut state = DraftCiderState::initial(options);
    for event in &events {
        apply(&mut state, event);
    }
    events.push(deal_round(&state, 1));
    events
}

/// The deal of `round`: the next `cards_per_player × players` cards of the
/// recorded deck, face up (§2).
fn deal_round(state: &DraftCiderState, round: u8) -> DraftCiderEvent {
    let size = usize::from(state.cards_per_player) * usize::from(state.players);
    let start = state.cards_dealt.min(state.deck.len());
    let end = (start + size).min(state.deck.len());
    DraftCiderEvent::RoundDealt {
        round,
        first_picker: state.first_picker_of_round(round),
        cards: state.deck.get(start..end).unwrap_or_default().to_vec(),
    }
}

pub fn decide(
    state: &DraftCiderState,
    actor: Actor<SeatIndex>,
    action: &DraftCiderAction,
) -> Result<Vec<DraftCiderEvent>, Violation> {
    match action {
        DraftCiderAction::Pick { card, batch } => {
            let Actor::Seat(seat) = actor else {
                return Err(codes::NOT_A_SEAT_ACTION.with(format!(
                    "The umpire cannot pick {card}: picks are made by the seat whose turn it is."
                )));
            };
            check_may_pick(state, seat)?;
            if !state.communal_hand.contains(card) {
                return Err(
                    codes::CARD_NOT_IN_HAND.with(format!("{card} is not in the communal hand."))
                );
            }
            let orchard = state
                .orchard(seat)
                .ok_or_else(|| unknown_seat(state, seat))?;
            check_placement(orchard, *batch, *card)?;
            Ok(with_consequences(
                state,
                DraftCiderEvent::CardPicked {
                    seat,
                    card: *card,
                    batch: *batch,
                    timed_out: false,
                },
            ))
        }
        DraftCiderAction::Timeout { seat } => {
            if let Actor::Seat(sender) = actor {
                return Err(codes::UMPIRE_ONLY.with(format!(
                    "Seat {} cannot declare a timeout for seat {}: only the umpire can.",
                    sender.0, seat.0
                )));
            }
            check_may_pick(state, *seat)?;
            // Bad always accepts (§3), so the forced pick is always legal.
            let Some(card) = state.communal_hand.first() else {
                return Err(not_started());
            };
            Ok(with_consequences(
                state,
                DraftCiderEvent::CardPicked {
                    seat: *seat,
                    card: *card,
                    batch: DraftCiderBatch::Bad,
                    timed_out: true,
                },
            ))
        }
    }
}

/// The checks shared by a pick and a timeout: the game is running, the seat
/// exists and it is its turn.
fn check_may_pick(state: &DraftCiderState, seat: SeatIndex) -> Result<(), Violation> {
    if state.finished {
        return Err(codes::GAME_OVER.with(format!(
            "Seat {} cannot pick: the last round is over.",
            seat.0
        )));
    }
    if state.round == 0 {
        return Err(not_started());
    }
    if seat.0 >= state.players {
        return Err(unknown_seat(state, seat));
    }
    if seat != state.picker {
        return Err(codes::NOT_YOUR_TURN.with(format!(
            "It is seat {}'s pick, not seat {}'s.",
            state.picker.0, seat.0
        )));
    }
    Ok(())
}

fn not_started() -> Violation {
    codes::NOT_STARTED.with("No round has been dealt yet, so there is nothing to pick.")
}

fn unknown_seat(state: &DraftCiderState, seat: SeatIndex) -> Violation {
    codes::UNKNOWN_SEAT.with(format!(
        "Seat {} does not exist in this {}-player game.",
        seat.0, state.players
    ))
}

/// The pick plus what follows from it automatically: the next round's deal
/// once the communal hand is empty, or the end of the game after the last
/// round (§2, §4).
fn with_consequences(state: &DraftCiderState, pick: DraftCiderEvent) -> Vec<DraftCiderEvent> {
    let mut after = state.clone();
    apply(&mut after, &pick);
    let mut events = vec![pick];
    if !after.communal_hand.is_empty() {
        return events;
    }
    if after.round < after.rounds_total {
        events.push(deal_round(&after, after.round + 1));
    } else {
        let seats = seat_scores(&after);
        let (winners, decided_by) = winners(&seats);
        events.push(DraftCiderEvent::GameFinished {
            totals: seats.iter().map(|seat| seat.total).collect(),
            winners,
            decided_by,
        });
    }
    events
}

pub fn status(state: &DraftCiderState) -> Status<SeatIndex> {
    if state.finished {
        Status {
            to_act: Vec::new(),
            phase: "finished",
            finished: true,
        }
    } else if state.round == 0 {
        Status {
            to_act: Vec::new(),
            phase: "setup",
            finished: false,
        }
    } else {
        Status {
            to_act: vec![state.picker],
            phase: "drafting",
            finished: false,
        }
    }
}

/// Every legal pick of the seat to act (at most 18 cards × 8 batches), and the
/// umpire's timeout for that seat.
pub fn legal_actions(state: &DraftCiderState, actor: Actor<SeatIndex>) -> Vec<DraftCiderAction> {
    if !state.is_drafting() || state.communal_hand.is_empty() {
        return Vec::new();
    }
    match actor {
        Actor::Umpire => vec![DraftCiderAction::Timeout { seat: state.picker }],
        Actor::Seat(seat) if seat == state.picker => {
            let Some(orchard) = state.orchard(seat) else {
                return Vec::new();
            };
            legal_picks(orchard, &state.communal_hand)
        }
        Actor::Seat(_) => Vec::new(),
    }
}

fn legal_picks(
    orchard: &crate::batches::DraftCiderOrchard,
    hand: &[DraftCiderCard],
) -> Vec<DraftCiderAction> {
    hand.iter()
        .flat_map(|card| {
            DraftCiderBatch::ALL
                .iter()
                .filter(|batch| check_placement(orchard, **batch, *card).is_ok())
                .map(|batch| DraftCiderAction::Pick {
                    card: *card,
                    batch: *batch,
                })
        })
        .collect()
}

//! Every rule: setup deals, actions into events or violations, and the
//! automatic consequences (round resolution, next deal, the end).

use rand::seq::SliceRandom;
use umpire_domain::{Actor, GameRng, SeatIndex, Violation};

use crate::apply::apply;
use crate::codes;
use crate::flowers::{
    all_fields, all_seats, clockwise_field, field_due, managers, other_manager, placer_of,
    FieldIndex, FlowerFieldsPiece, BREAK_GARNETS, BREAK_POINTS, LAST_REPLACEABLE_DEAL_ROUND,
    LAST_ROUND, MISSED_SUBMISSION_POINTS, REPLACEMENT_GARNETS, SEAT_COUNT,
};
use crate::messages::{
    amount_of, recorded_v1, FlowerFieldsAction, FlowerFieldsDiscardReason, FlowerFieldsEvent,
    FlowerFieldsPenalty, FlowerFieldsPlacement, FlowerFieldsSubmission,
};
use crate::options::FlowerFieldsOptions;
use crate::score::{final_totals, garnets_earned, result_for};
use crate::state::{FieldState, FlowerFieldsPhase, FlowerFieldsState};

/// §2: every seat's bag shuffled once; round 0 and round 1 dealt from it.
pub fn setup(options: &FlowerFieldsOptions, rng: &mut GameRng) -> Vec<FlowerFieldsEvent> {
    let bags: Vec<Vec<FlowerFieldsPiece>> = all_seats()
        .map(|_| {
            let mut bag = FlowerFieldsPiece::full_bag();
            bag.shuffle(rng);
            bag
        })
        .collect();
    setup_with_bags(options, bags)
}

/// The setup events for bags already drawn (imported games, tests): the
/// same events `setup` records after its shuffle.
pub fn setup_with_bags(
    options: &FlowerFieldsOptions,
    bags: Vec<Vec<FlowerFieldsPiece>>,
) -> Vec<FlowerFieldsEvent> {
    let mut emitter = Emitter::new(FlowerFieldsState::new(options));
    emitter.emit(FlowerFieldsEvent::GameSetUp {
        starting_garnets: options.starting_garnets,
        scoring: options.scoring,
        piece_replacement: options.piece_replacement,
    });
    emitter.emit(FlowerFieldsEvent::BagsShuffled { bags });
    // Round 0 is deals only (§1): round 1 starts straight away.
    emitter.start_round(0);
    emitter.start_round(1);
    emitter.events
}

/// Applies events to a working copy as they are emitted, so automatic
/// consequences are decided on the state they will actually meet.
struct Emitter {
    state: FlowerFieldsState,
    events: Vec<FlowerFieldsEvent>,
}

impl Emitter {
    fn new(state: FlowerFieldsState) -> Self {
        Emitter {
            state,
            events: Vec::new(),
        }
    }

    fn emit(&mut self, event: FlowerFieldsEvent) {
        apply(&mut self.state, &event);
        self.events.push(event);
    }

    /// §1, §3: a round starts with one deal per seat (from the recorded bag)
    /// and, from round 1, a break notice to both managers of every field.
    fn start_round(&mut self, round: u8) {
        self.emit(FlowerFieldsEvent::RoundStarted { round });
        for seat in all_seats() {
            let piece = self
                .state
                .bags
                .get(usize::from(seat.0))
                .and_then(|bag| bag.get(usize::from(round)))
                .copied();
            if let Some(piece) = piece {
                self.emit(FlowerFieldsEvent::PieceDealt { seat, round, piece });
            }
        }
        if round >= 1 {
            for field in all_fields() {
                let must_break = self.state.field(field).is_some_and(FieldState::must_break);
                self.emit(FlowerFieldsEvent::BreakNoticeGiven {
                    field,
                    round,
                    must_break,
                });
            }
        }
    }

    /// Resolves the round once every seat submitted or missed, then starts
    /// the next round or ends the game.
    fn resolve_round_if_complete(&mut self) {
        if self.state.phase != FlowerFieldsPhase::Submitting
            || all_seats().any(|seat| self.state.is_pending(seat))
        {
            return;
        }
        let round = self.state.round;
        for field in all_fields() {
            self.resolve_field(field, round);
        }
        // §5: each missed piece goes to the other manager of its field, or is
        // discarded when there is no next round.
        for seat in all_seats() {
            let Some(seat_state) = self.state.seat(seat) else {
                continue;
            };
            if !seat_state.missed_this_round {
                continue;
            }
            let Some(piece) = seat_state.missed_piece else {
                continue;
            };
            let field = field_due(seat, round);
            if round >= LAST_ROUND {
                self.emit(FlowerFieldsEvent::PieceDiscarded {
                    owner: seat,
                    round,
                    piece,
                    reason: FlowerFieldsDiscardReason::MissedInLastRound,
                    field: None,
                });
            } else {
                self.emit(FlowerFieldsEvent::PieceRevealed {
                    field,
                    round,
                    from_seat: seat,
                    to_seat: other_manager(field, seat),
                    piece,
                });
            }
        }
        self.emit(FlowerFieldsEvent::RoundResolved { round });
        if round >= LAST_ROUND {
            self.end_game();
        } else {
            self.start_round(round + 1);
        }
    }

    /// §3, §5: the revealed piece first, then the placer's own piece; each
    /// break charges both managers.
    fn resolve_field(&mut self, field: FieldIndex, round: u8) {
        let placer = placer_of(field, round);
        let submission = self.state.seat(placer).and_then(|seat| seat.submission);
        let revealed = self
            .state
            .field(field)
            .and_then(|state| state.revealed)
            .filter(|revealed| revealed.due_round == round);
        if let Some(revealed) = revealed {
            match submission.and_then(|submission| submission.revealed) {
                Some(placement) => {
                    self.emit(FlowerFieldsEvent::PiecePlaced {
                        field,
                        round,
                        seat: placer,
                        piece: placement.piece,
                        cells: placement.cells,
                        broken: placement.broken,
                        revealed_from: Some(revealed.from_seat),
                    });
                    if placement.broken {
                        self.charge_break(field, round);
                    }
                }
                None => self.emit(FlowerFieldsEvent::PieceDiscarded {
                    owner: revealed.from_seat,
                    round,
                    piece: revealed.piece,
                    reason: FlowerFieldsDiscardReason::ReceiverMissed,
                    field: Some(field),
                }),
            }
        }
        if let Some(submission) = submission {
            self.emit(FlowerFieldsEvent::PiecePlaced {
                field,
                round,
                seat: placer,
                piece: submission.piece,
                cells: submission.cells,
                broken: submission.broken,
                revealed_from: None,
            });
            if submission.broken {
                self.charge_break(field, round);
            }
        }
    }

    /// §3: each manager pays 3 garnets if it chose garnets and has them,
    /// else takes 10 points (no choice or a missed submission means points).
    fn charge_break(&mut self, field: FieldIndex, round: u8) {
        for manager in managers(field) {
            let Some(seat_state) = self.state.seat(manager) else {
                continue;
            };
            let choice = seat_state.submission.and_then(|submission| {
                if field == clockwise_field(manager) {
                    submission.penalties.clockwise
                } else {
                    submission.penalties.counterclockwise
                }
            });
            let penalty = match choice {
                Some(FlowerFieldsPenalty::Garnets)
                    if seat_state.garnets.balance >= BREAK_GARNETS =>
                {
                    FlowerFieldsPenalty::Garnets
                }
                _ => FlowerFieldsPenalty::Points,
            };
            let amount = match penalty {
                FlowerFieldsPenalty::Garnets => BREAK_GARNETS,
                FlowerFieldsPenalty::Points => BREAK_POINTS,
            };
            self.emit(FlowerFieldsEvent::BreakPenaltyTaken {
                seat: manager,
                round,
                break_field: field,
                penalty,
                amount: amount_of(amount, penalty.recorded_v1_amount()),
            });
        }
    }

    /// §7: fill with black, earn garnets, declare the result.
    fn end_game(&mut self) {
        self.emit(FlowerFieldsEvent::GameEnded);
        let earned = garnets_earned(&self.state);
        for seat in all_seats() {
            let garnets = earned.get(usize::from(seat.0)).copied().unwrap_or(0);
            self.emit(FlowerFieldsEvent::GarnetsEarned { seat, garnets });
        }
        let totals = final_totals(&self.state);
        let result = result_for(&totals);
        self.emit(FlowerFieldsEvent::ResultDeclared {
            winner: result.winner,
            candidates: result.candidates,
        });
    }
}

pub fn decide(
    state: &FlowerFieldsState,
    actor: Actor<SeatIndex>,
    action: &FlowerFieldsAction,
) -> Result<Vec<FlowerFieldsEvent>, Violation> {
    match action {
        FlowerFieldsAction::Submit {
            field,
            piece,
            cells,
            broken,
            revealed,
            penalties,
            replaces_previous,
        } => {
            let seat = seat_actor(actor)?;
            let submission = FlowerFieldsSubmission {
                field: *field,
                piece: *piece,
                cells: *cells,
                broken: *broken,
                revealed: *revealed,
                penalties: *penalties,
            };
            submit(state, seat, submission, *replaces_previous)
        }
        FlowerFieldsAction::ReplacePiece { piece, with } => {
            let seat = seat_actor(actor)?;
            replace_piece(state, seat, *piece, *with)
        }
        FlowerFieldsAction::Timeout { seat } => {
            umpire_actor(actor)?;
            timeout(state, *seat)
        }
        FlowerFieldsAction::CloseRound => {
            umpire_actor(actor)?;
            close_round(state)
        }
        FlowerFieldsAction::SetRuling { rule, enabled } => {
            umpire_actor(actor)?;
            if state.ended {
                return Err(game_over());
            }
            Ok(vec![FlowerFieldsEvent::RulingSet {
                rule: *rule,
                enabled: *enabled,
                round: state.round,
            }])
        }
        FlowerFieldsAction::ChooseCandidate { seat } => {
            umpire_actor(actor)?;
            choose_candidate(state, *seat)
        }
    }
}

fn seat_actor(actor: Actor<SeatIndex>) -> Result<SeatIndex, Violation> {
    match actor {
        Actor::Seat(seat) if seat.0 < SEAT_COUNT => Ok(seat),
        Actor::Seat(seat) => Err(no_such_seat(seat)),
        Actor::Umpire => Err(codes::NOT_A_SEAT_ACTION
            .with("Submissions and replacements are made by a seat, not by the umpire.")),
    }
}

fn umpire_actor(actor: Actor<SeatIndex>) -> Result<(), Violation> {
    match actor {
        Actor::Umpire => Ok(()),
        Actor::Seat(seat) => {
            Err(codes::UMPIRE_ONLY.with(format!("Seat {} cannot send an umpire action.", seat.0)))
        }
    }
}

fn no_such_seat(seat: SeatIndex) -> Violation {
    codes::NO_SUCH_SEAT.with(format!("Seat {} does not exist: seats are 0 to 4.", seat.0))
}

fn game_over() -> Violation {
    codes::GAME_OVER.with("The game is over after round 12.")
}

/// The checks shared by every seat action during a round.
fn require_open_round(state: &FlowerFieldsState, seat: SeatIndex) -> Result<(), Violation> {
    match state.phase {
        FlowerFieldsPhase::Submitting => {}
        FlowerFieldsPhase::Setup => {
            return Err(codes::NOT_STARTED.with("The game has not been set up yet."))
        }
        FlowerFieldsPhase::ChoosingCandidate | FlowerFieldsPhase::Finished => {
            return Err(game_over())
        }
    }
    if state
        .seat(seat)
        .is_some_and(|seat_state| seat_state.missed_this_round)
    {
        return Err(codes::SUBMISSION_MISSED.with(format!(
            "Seat {} already missed its submission for round {}.",
            seat.0, state.round
        )));
    }
    Ok(())
}

/// §1–§3, §5: a secret submission, checked against the field as it stands.
fn submit(
    state: &FlowerFieldsState,
    seat: SeatIndex,
    submission: FlowerFieldsSubmission,
    replaces_previous: bool,
) -> Result<Vec<FlowerFieldsEvent>, Violation> {
    require_open_round(state, seat)?;
    let Some(seat_state) = state.seat(seat) else {
        return Err(no_such_seat(seat));
    };
    let round = state.round;
    if seat_state.submission.is_some() && !replaces_previous {
        return Err(codes::ALREADY_SUBMITTED.with(format!(
                "Seat {} already submitted for round {round}; send replaces_previous: true to change it.",
                seat.0
            )));
    }
    let due = field_due(seat, round);
    if submission.field != due {
        return Err(codes::WRONG_FIELD.with(format!(
            "Seat {} plays into field {due} in round {round}, not field {}.",
            seat.0, submission.field
        )));
    }
    // §2: the piece comes from the hand, and an overdue piece is the only choice.
    let Some(position) = seat_state.hand_position_of(&submission.piece) else {
        return Err(codes::NOT_IN_HAND.with(format!(
            "Seat {} does not hold the piece {}.",
            seat.0, submission.piece
        )));
    };
    if let Some(oldest) = seat_state.oldest_position() {
        let overdue = seat_state
            .hand
            .get(oldest)
            .filter(|held| held.play_by_round <= round);
        if let Some(overdue) = overdue {
            if oldest != position {
                return Err(codes::PIECE_OVERDUE.with(format!(
                    "The piece {} dealt in round {} must be played by round {round}, not {}.",
                    overdue.piece, overdue.dealt_round, submission.piece
                )));
            }
        }
    }
    let Some(field_state) = state.field(due) else {
        return Err(codes::WRONG_FIELD.with(format!("Field {due} does not exist.")));
    };
    let mut working_field = field_state.clone();
    // §5: the revealed piece goes in first, in the same submission.
    let pending = field_state
        .revealed
        .filter(|revealed| revealed.due_round == round);
    match (pending, submission.revealed) {
        (Some(pending), Some(placement)) if placement.piece.same_piece_as(&pending.piece) => {
            check_placement(&working_field, &placement, "revealed piece")?;
            place(&mut working_field, &placement);
        }
        (Some(pending), _) => {
            return Err(codes::MISSING_REVEALED_PIECE.with(format!(
                "The piece {} revealed by seat {} must be placed in field {due} first.",
                pending.piece, pending.from_seat.0
            )))
        }
        (None, Some(placement)) => {
            return Err(codes::NO_REVEALED_PIECE.with(format!(
                "No revealed piece {} waits in field {due}.",
                placement.piece
            )))
        }
        (None, None) => {}
    }
    let own = FlowerFieldsPlacement {
        piece: submission.piece,
        cells: submission.cells,
        broken: submission.broken,
    };
    check_placement(&working_field, &own, "piece")?;
    let mut emitter = Emitter::new(state.clone());
    emitter.emit(FlowerFieldsEvent::SubmissionMade {
        seat,
        round,
        submission,
        replaced_previous: seat_state.submission.is_some(),
    });
    emitter.resolve_round_if_complete();
    Ok(emitter.events)
}

/// §3: a domino on two adjacent empty cells, or a break onto any two empty
/// cells when (and only when) no adjacent empty pair exists.
fn check_placement(
    field: &FieldState,
    placement: &FlowerFieldsPlacement,
    what: &str,
) -> Result<(), Violation> {
    let [first, second] = placement.cells;
    if first == second {
        return Err(codes::SAME_CELL.with(format!(
            "The {what} {} names the cell {first} twice.",
            placement.piece
        )));
    }
    for cell in placement.cells {
        if !field.is_empty_at(cell) {
            return Err(codes::CELL_OCCUPIED.with(format!("The cell {cell} is already planted.")));
        }
    }
    let must_break = field.must_break();
    if placement.broken {
        if !must_break {
            return Err(codes::BREAK_NOT_NEEDED.with(format!(
                "The {what} {} cannot be broken: the field still has two adjacent empty cells.",
                placement.piece
            )));
        }
    } else if !first.is_adjacent_to(second) {
        let hint = if must_break {
            " (no adjacent pair is left: send broken: true)"
        } else {
            ""
        };
        return Err(codes::CELLS_NOT_ADJACENT.with(format!(
            "The cells {first} and {second} are not orthogonally adjacent{hint}."
        )));
    }
    Ok(())
}

fn place(field: &mut FieldState, placement: &FlowerFieldsPlacement) {
    let [first_cell, second_cell] = placement.cells;
    field.set(first_cell, placement.piece.first);
    field.set(second_cell, placement.piece.second);
}

/// §6: 3 garnets for any two-flower piece, for a piece dealt in rounds 0–3,
/// only while the ruling is in force.
fn replace_piece(
    state: &FlowerFieldsState,
    seat: SeatIndex,
    piece: FlowerFieldsPiece,
    with: FlowerFieldsPiece,
) -> Result<Vec<FlowerFieldsEvent>, Violation> {
    require_open_round(state, seat)?;
    let Some(seat_state) = state.seat(seat) else {
        return Err(no_such_seat(seat));
    };
    if seat_state.submission.is_some() {
        return Err(codes::ALREADY_SUBMITTED_BEFORE_REPLACING.with(format!(
            "Seat {} already submitted for round {}; replace {piece} before submitting.",
            seat.0, state.round
        )));
    }
    if !state.piece_replacement {
        return Err(codes::REPLACEMENT_NOT_ALLOWED.with(format!(
            "The piece-replacement ruling is not in force, so {piece} cannot be replaced."
        )));
    }
    let held = seat_state
        .hand
        .iter()
        .filter(|held| held.piece.same_piece_as(&piece))
        .min_by_key(|held| held.dealt_round)
        .copied();
    let Some(held) = held else {
        return Err(codes::NOT_IN_HAND_TO_REPLACE
            .with(format!("Seat {} does not hold the piece {piece}.", seat.0)));
    };
    if held.dealt_round > LAST_REPLACEABLE_DEAL_ROUND {
        return Err(codes::REPLACEMENT_NOT_ALLOWED.with(format!(
                "The piece {piece} was dealt in round {}; only pieces dealt in rounds 0–3 may be replaced.",
                held.dealt_round
            )));
    }
    if seat_state.garnets.balance < REPLACEMENT_GARNETS {
        return Err(codes::REPLACEMENT_NOT_ALLOWED.with(format!(
            "Replacing {piece} costs {REPLACEMENT_GARNETS} garnets and seat {} has {}.",
            seat.0, seat_state.garnets.balance
        )));
    }
    Ok(vec![FlowerFieldsEvent::PieceReplaced {
        seat,
        round: state.round,
        piece: held.piece,
        with,
        dealt_round: held.dealt_round,
        garnets: amount_of(REPLACEMENT_GARNETS, recorded_v1::REPLACEMENT_GARNETS),
    }])
}

fn missed_event(state: &FlowerFieldsState, seat: SeatIndex) -> FlowerFieldsEvent {
    let piece = state.seat(seat).and_then(|seat_state| {
        seat_state
            .oldest_position()
            .and_then(|position| seat_state.hand.get(position))
            .map(|held| held.piece)
    });
    FlowerFieldsEvent::SubmissionMissed {
        seat,
        round: state.round,
        due_field: field_due(seat, state.round),
        piece,
        points: amount_of(
            MISSED_SUBMISSION_POINTS,
            recorded_v1::MISSED_SUBMISSION_POINTS,
        ),
    }
}

/// §5: the umpire marks one seat's submission as missed.
fn timeout(
    state: &FlowerFieldsState,
    seat: SeatIndex,
) -> Result<Vec<FlowerFieldsEvent>, Violation> {
    if seat.0 >= SEAT_COUNT {
        return Err(no_such_seat(seat));
    }
    require_open_round(state, seat)?;
    if state
        .seat(seat)
        .is_some_and(|seat_state| seat_state.submission.is_some())
    {
        return Err(codes::TIMEOUT_AFTER_SUBMISSION.with(format!(
            "Seat {} already submitted for round {}.",
            seat.0, state.round
        )));
    }
    let mut emitter = Emitter::new(state.clone());
    emitter.emit(missed_event(state, seat));
    emitter.resolve_round_if_complete();
    Ok(emitter.events)
}

/// §1, §5: every seat still pending misses, and the round resolves.
fn close_round(state: &FlowerFieldsState) -> Result<Vec<FlowerFieldsEvent>, Violation> {
    match state.phase {
        FlowerFieldsPhase::Submitting => {}
        FlowerFieldsPhase::Setup => {
            return Err(codes::NOT_STARTED.with("The game has not been set up yet."))
        }
        FlowerFieldsPhase::ChoosingCandidate | FlowerFieldsPhase::Finished => {
            return Err(game_over())
        }
    }
    let mut emitter = Emitter::new(state.clone());
    for seat in all_seats() {
        if state.is_pending(seat) {
            emitter.emit(missed_event(state, seat));
        }
    }
    emitter.resolve_round_if_complete();
    Ok(emitter.events)
}

/// §7: the umpire settles a tie for the Elimination Candidate.
fn choose_candidate(
    state: &FlowerFieldsState,
    seat: SeatIndex,
) -> Result<Vec<FlowerFieldsEvent>, Violation> {
    match state.phase {
        FlowerFieldsPhase::ChoosingCandidate => {}
        FlowerFieldsPhase::Finished => return Err(game_over()),
        FlowerFieldsPhase::Setup | FlowerFieldsPhase::Submitting => {
            return Err(codes::NO_CANDIDATE_TIE.with(format!(
                "There is no tie for the Elimination Candidate to settle with seat {}.",
                seat.0
            )))
        }
    }
    let candidates = state
        .result
        .as_ref()
        .map(|result| result.candidates.clone())
        .unwrap_or_default();
    if !candidates.contains(&seat) {
        return Err(codes::NOT_A_CANDIDATE.with(format!(
            "Seat {} is not among the tied Elimination Candidates.",
            seat.0
        )));
    }
    Ok(vec![FlowerFieldsEvent::CandidateChosen { seat }])
}

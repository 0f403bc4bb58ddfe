//! Golden replay of one whole game: fixed seed, deterministic choices,
//! umpire timeouts and a ruling switched on and off, recorded in
//! `tests/data/flower_fields/whole_game.json`. The game played today must
//! give that file byte for byte. Re-bless with
//! `UPDATE_EXPECT=1 cargo test -p umpire-flower-fields golden` and review
//! the diff.

use expect_test::expect_file;
use serde_json::{json, Value};
use umpire_domain::rng::rng_from_seed;
use umpire_domain::testing::fold;
use umpire_domain::{Actor, Game, SeatIndex, Viewer};
use umpire_flower_fields::state::FlowerFieldsPhase;
use umpire_flower_fields::{
    FlowerFields, FlowerFieldsAction, FlowerFieldsEvent, FlowerFieldsOptions, FlowerFieldsRuling,
    FlowerFieldsState,
};

const SEED: u64 = 0x003d_9f6a_cf7d;

fn options() -> FlowerFieldsOptions {
    FlowerFieldsOptions {
        starting_garnets: 6,
        ..FlowerFieldsOptions::default()
    }
}

fn play(
    state: &mut FlowerFieldsState,
    events: &mut Vec<FlowerFieldsEvent>,
    actor: Actor<SeatIndex>,
    action: FlowerFieldsAction,
) {
    let produced = FlowerFields::decide(state, actor, &action)
        .unwrap_or_else(|violation| panic!("golden action {action:?} refused: {violation}"));
    for event in produced {
        FlowerFields::apply(state, &event);
        events.push(event);
    }
}

/// The scripted game: umpire actions at fixed rounds, otherwise the lowest
/// pending seat plays a listed action picked by a fixed formula.
fn scripted_game() -> (Vec<FlowerFieldsEvent>, FlowerFieldsState) {
    let options = options();
    let mut state = FlowerFields::initial_state(&options);
    let mut events = FlowerFields::setup(&options, &mut rng_from_seed(SEED));
    for event in &events {
        FlowerFields::apply(&mut state, event);
    }
    let mut umpire_done_for_round = 0;
    for step in 0..500usize {
        if state.phase == FlowerFieldsPhase::Finished {
            break;
        }
        if state.phase == FlowerFieldsPhase::ChoosingCandidate {
            let action = FlowerFields::legal_actions(&state, Actor::Umpire)[0].clone();
            play(&mut state, &mut events, Actor::Umpire, action);
            continue;
        }
        let round = state.round;
        if umpire_done_for_round < round {
            umpire_done_for_round = round;
            match round {
                2 => {
                    play(
                        &mut state,
                        &mut events,
                        Actor::Umpire,
                        FlowerFieldsAction::SetRuling {
                            rule: FlowerFieldsRuling::PieceReplacement,
                            enabled: true,
                        },
                    );
                    let replacement =
                        FlowerFields::legal_actions(&state, Actor::Seat(SeatIndex(1)))
                            .into_iter()
                            .find(|action| {
                                matches!(action, FlowerFieldsAction::ReplacePiece { .. })
                            })
                            .expect("a replacement is offered");
                    play(
                        &mut state,
                        &mut events,
                        Actor::Seat(SeatIndex(1)),
                        replacement,
                    );
                }
                3 => play(
                    &mut state,
                    &mut events,
                    Actor::Umpire,
                    FlowerFieldsAction::SetRuling {
                        rule: FlowerFieldsRuling::PieceReplacement,
                        enabled: false,
                    },
                ),
                5 => play(
                    &mut state,
                    &mut events,
                    Actor::Umpire,
                    FlowerFieldsAction::Timeout { seat: SeatIndex(2) },
                ),
                12 => play(
                    &mut state,
                    &mut events,
                    Actor::Umpire,
                    FlowerFieldsAction::Timeout { seat: SeatIndex(4) },
                ),
                _ => {}
            }
            continue;
        }
        let Some(seat) = FlowerFields::status(&state).to_act.first().copied() else {
            panic!("nobody to act at step {step}");
        };
        let listed: Vec<FlowerFieldsAction> =
            FlowerFields::legal_actions(&state, Actor::Seat(seat))
                .into_iter()
                .filter(|action| matches!(action, FlowerFieldsAction::Submit { .. }))
                .collect();
        let index = (usize::from(round) * 7 + usize::from(seat.0) * 3 + step) % listed.len();
        play(
            &mut state,
            &mut events,
            Actor::Seat(seat),
            listed[index].clone(),
        );
    }
    (events, state)
}

fn record(events: &[FlowerFieldsEvent], state: &FlowerFieldsState) -> Value {
    json!({
        "game": "flower_fields",
        "seed": SEED,
        "options": options(),
        "events": events,
        "final_view": FlowerFields::view(state, Viewer::Umpire),
        "score": FlowerFields::score(state, Viewer::Umpire),
        "summary": FlowerFields::summary(state),
    })
}

#[test]
fn the_golden_game_replays_to_the_recorded_state_and_score() {
    let (events, played) = scripted_game();
    assert_eq!(played.phase, FlowerFieldsPhase::Finished);
    // Events in, state and score out: folded afresh, not the play's state.
    let state = fold::<FlowerFields>(&options(), &events);
    // The rules still decide the same game from the same seed, and fold it
    // to the same view and score.
    expect_file!["../../../tests/data/flower_fields/whole_game.json"]
        .assert_eq(&(serde_json::to_string_pretty(&record(&events, &state)).expect("json") + "\n"));
}

//! Arbitrary JSON actions fed to every game's `decide`, at many positions of
//! random games: never a panic, always events or a refusal (a violation, or
//! "malformed" for JSON that is not an action at all). And the service's
//! append path (`decide_and_apply`, which keeps the typed state instead of
//! reading the events back) always ends where folding the stored events does.

use proptest::prelude::*;
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use serde_json::{json, Map, Value};
use umpire_domain::erased::DecodedEvent;
use umpire_domain::{Actor, DynMatch, GameError, Viewer};

/// Any JSON value, biased towards objects with a `type` (so the fuzzing gets
/// past the tag) and towards the field names games use.
fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|n| json!(n)),
        prop_oneof![
            Just("Q7".to_string()),
            Just("D5".to_string()),
            Just("gold h3 s5".to_string()),
            Just("red".to_string()),
            Just("garden".to_string()),
            Just("leaf".to_string()),
            "[a-z0-9 ]{0,12}".prop_map(String::from),
        ]
        .prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("type".to_string()),
                        Just("card".to_string()),
                        Just("cell".to_string()),
                        Just("seat".to_string()),
                        Just("groups".to_string()),
                        Just("placements".to_string()),
                        Just("batch".to_string()),
                        Just("piece".to_string()),
                        Just("cells".to_string()),
                        "[a-z_]{1,10}".prop_map(String::from),
                    ],
                    inner
                ),
                0..5
            )
            .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Replaces one value inside a legal action by an arbitrary one.
fn mutate(action: &Value, replacement: Value, pick: usize) -> Value {
    let mut action = action.clone();
    if let Value::Object(map) = &mut action {
        let keys: Vec<String> = map.keys().cloned().collect();
        if !keys.is_empty() {
            let key = &keys[pick % keys.len()];
            map.insert(key.clone(), replacement);
        }
    }
    action
}

/// A game advanced by `steps` random legal actions.
fn position(game: &str, seed: u64, steps: usize) -> Box<dyn DynMatch> {
    played(game, seed, steps).0
}

/// A game advanced by `steps` random legal actions, and its events.
pub(crate) fn played(game: &str, seed: u64, steps: usize) -> (Box<dyn DynMatch>, Vec<Value>) {
    let registry = umpire_games::registry();
    let rules = registry.get(game).unwrap();
    let options = rules.validate_options(&Value::Null).unwrap();
    let mut state = rules.new_match(&options).unwrap();
    let mut log = rules.setup(&options, seed).unwrap();
    for event in &log {
        state.apply_json(event).unwrap();
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..steps {
        let status = state.status();
        if status.finished {
            break;
        }
        let actor = match status.to_act.choose(&mut rng) {
            Some(seat) => Actor::Seat(seat.clone()),
            None => Actor::Umpire,
        };
        let legal = state.legal_actions(&actor).unwrap();
        let Some(action) = legal.choose(&mut rng) else {
            break;
        };
        let events = state.decide(&actor, action).unwrap();
        let mut folded = state.clone_box();
        for event in &events {
            folded.apply_json(event).unwrap();
        }
        assert_decided_as_folded(state.as_ref(), &actor, action, &events, folded.as_ref());
        state = folded;
        log.extend(events);
    }
    (state, log)
}

/// `decide_and_apply` gives the events `decide` gives, and a state that is
/// indistinguishable from `folded` (the events applied from their JSON):
/// same version, status, score, and the umpire's view, which shows
/// everything, deck orders included.
fn assert_decided_as_folded(
    state: &dyn DynMatch,
    actor: &Actor<String>,
    action: &Value,
    events: &[Value],
    folded: &dyn DynMatch,
) {
    let decision = state
        .decide_and_apply(actor, action)
        .expect("accepted by decide, so by decide_and_apply");
    assert_eq!(decision.events, events, "{action}");
    let after = decision.after.as_ref();
    assert_eq!(after.version(), folded.version());
    assert_eq!(after.status(), folded.status());
    assert_eq!(
        after.view(&Viewer::Umpire).unwrap(),
        folded.view(&Viewer::Umpire).unwrap(),
        "{action}"
    );
    assert_eq!(
        after.score(&Viewer::Umpire).unwrap(),
        folded.score(&Viewer::Umpire).unwrap()
    );
    assert_eq!(after.summary(), folded.summary());
    // The events as decided, in their game's type, redact for every viewer
    // as the stored JSON does: the answer to an action redacts those.
    assert_eq!(decision.decoded.len(), events.len(), "{action}");
    let seats = umpire_games::registry()
        .get(state.game_id())
        .unwrap()
        .seats(&Value::Null)
        .unwrap();
    let viewers = [Viewer::Spectator, Viewer::Umpire]
        .into_iter()
        // Those of the default options this game also has.
        .chain(
            seats
                .into_iter()
                .filter(|seat| state.timeout_action(seat).is_ok())
                .map(Viewer::Seat),
        );
    for viewer in viewers {
        for (event, decoded) in events.iter().zip(&decision.decoded) {
            assert_eq!(
                after.show_event_text(event, decoded, &viewer).unwrap(),
                after
                    .show_event_text(event, &DecodedEvent::default(), &viewer)
                    .unwrap(),
                "{action}: {event} for {viewer:?}"
            );
        }
    }
}

fn check(state: &dyn DynMatch, actor: &Actor<String>, action: &Value) {
    match state.decide(actor, action) {
        Ok(events) => {
            // Whatever is accepted must fold.
            let mut after = state.clone_box();
            for event in &events {
                after.apply_json(event).expect("accepted events fold");
            }
            assert_decided_as_folded(state, actor, action, &events, after.as_ref());
        }
        Err(GameError::Violation(violation)) => {
            assert!(
                violation.code.starts_with(state.game_id()),
                "{}",
                violation.code
            );
            assert!(!violation.message.is_empty());
            // Every refusal is one the game lists (and so publishes).
            let kinds = umpire_games::registry()
                .get(state.game_id())
                .unwrap()
                .violation_kinds();
            assert!(
                kinds
                    .iter()
                    .any(|kind| kind.code == violation.code && kind.rule == violation.rule),
                "{} ({}) is not in {}'s list",
                violation.code,
                violation.rule,
                state.game_id()
            );
        }
        Err(GameError::Malformed { .. }) => {}
        Err(other) => panic!("unexpected error {other:?} for {action}"),
    }
}

pub(crate) const GAMES: [&str; 4] = ["arboretum", "treeblox", "draft_cider", "flower_fields"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_never_panics_any_game(
        game in prop::sample::select(GAMES.to_vec()),
        seed in 0u64..1_000,
        steps in 0usize..60,
        action in arbitrary_json(),
        pick in 0usize..8,
        replacement in arbitrary_json(),
    ) {
        let state = position(game, seed, steps);
        let registry = umpire_games::registry();
        let seats = registry.get(game).unwrap().seats(&Value::Null).unwrap();
        let mut actors: Vec<Actor<String>> = seats.into_iter().map(Actor::Seat).collect();
        actors.push(Actor::Umpire);
        for actor in &actors {
            check(state.as_ref(), actor, &action);
            // Near misses: a legal action with one field replaced.
            for legal in state.legal_actions(actor).unwrap().iter().take(3) {
                check(state.as_ref(), actor, &mutate(legal, replacement.clone(), pick));
            }
        }
    }

    /// Whole random games: every accepted action's `decide_and_apply` ends
    /// where folding its stored events does (checked inside `position`).
    #[test]
    fn deciding_and_applying_ends_where_folding_does(
        game in prop::sample::select(GAMES.to_vec()),
        seed in 0u64..10_000,
    ) {
        let state = position(game, seed, 400);
        prop_assert!(state.version() > 0);
    }
}

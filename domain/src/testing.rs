//! Test support shared by every game crate: a given/when/then table and
//! random legal play. Pure like the rest of the crate; used from tests only.

use rand::seq::IndexedRandom;
use rand::Rng;
use serde::Serialize;

use crate::game::Game;
use crate::rng::rng_from_seed;
use crate::{Actor, GameRng, Viewer, Violation};

/// A game in progress for rule tests: events so far and the folded state.
pub struct Table<G: Game> {
    pub options: G::Options,
    pub state: G::State,
    pub events: Vec<G::Event>,
}

impl<G: Game> Table<G> {
    /// Given a game set up with these options and seed.
    pub fn new(options: G::Options, seed: u64) -> Self {
        let options = G::validate_options(options).expect("test options are valid");
        let mut table = Table {
            state: G::initial_state(&options),
            options: options.clone(),
            events: Vec::new(),
        };
        let events = G::setup(&options, &mut rng_from_seed(seed));
        table.apply_all(&events);
        table
    }

    /// Given these events (e.g. a hand-made deal) folded from the initial state.
    pub fn from_events(options: G::Options, events: Vec<G::Event>) -> Self {
        let options = G::validate_options(options).expect("test options are valid");
        let mut table = Table {
            state: G::initial_state(&options),
            options,
            events: Vec::new(),
        };
        table.apply_all(&events);
        table
    }

    pub fn apply_all(&mut self, events: &[G::Event]) {
        for event in events {
            G::apply(&mut self.state, event);
            self.events.push(event.clone());
        }
    }

    /// When `actor` plays `action`: the events on success (already applied).
    pub fn play(
        &mut self,
        actor: Actor<G::Seat>,
        action: G::Action,
    ) -> Result<Vec<G::Event>, Violation> {
        let events = G::decide(&self.state, actor, &action)?;
        self.apply_all(&events);
        Ok(events)
    }

    /// Then it is accepted.
    #[track_caller]
    pub fn accepts(&mut self, actor: Actor<G::Seat>, action: G::Action) -> Vec<G::Event> {
        let shown = json_of(&action);
        match self.play(actor, action) {
            Ok(events) => events,
            Err(violation) => {
                panic!("expected {shown} by {actor:?} to be accepted, got {violation}")
            }
        }
    }

    /// Then it is refused with `code`, and the state is unchanged.
    #[track_caller]
    pub fn refuses(&mut self, actor: Actor<G::Seat>, action: G::Action, code: &str) -> Violation {
        let shown = json_of(&action);
        match G::decide(&self.state, actor, &action) {
            Ok(events) => panic!(
                "expected {shown} by {actor:?} to be refused with {code}, got events {}",
                json_of(&events)
            ),
            Err(violation) => {
                assert_eq!(violation.code, code, "{shown}: {violation}");
                assert!(!violation.message.is_empty(), "violation without a message");
                violation
            }
        }
    }

    pub fn view(&self, viewer: Viewer<G::Seat>) -> serde_json::Value {
        serde_json::to_value(G::view(&self.state, viewer)).expect("view serialises")
    }
}

fn json_of<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "<unserialisable>".into())
}

/// What one random game produced.
pub struct RandomGame<G: Game> {
    pub options: G::Options,
    pub state: G::State,
    pub events: Vec<G::Event>,
    /// (actor, action) pairs in the order played.
    pub actions: Vec<(Actor<G::Seat>, G::Action)>,
    pub finished: bool,
}

/// Plays random legal actions until the game ends or `max_actions` is reached.
/// Every action it picks comes from `legal_actions` and must be accepted:
/// a refusal panics with the action and the violation, which is exactly the
/// "every listed legal action is accepted" invariant. When no seat is waiting
/// and the game is not over, the umpire's legal actions are tried.
pub fn play_random<G: Game>(options: G::Options, seed: u64, max_actions: usize) -> RandomGame<G> {
    let options = G::validate_options(options).expect("options are valid");
    let mut rng: GameRng = rng_from_seed(seed ^ 0x0005_eed0_fac7_10e5);
    let mut state = G::initial_state(&options);
    let mut events = G::setup(&options, &mut rng_from_seed(seed));
    for event in &events {
        G::apply(&mut state, event);
    }
    let mut actions = Vec::new();
    for _ in 0..max_actions {
        let status = G::status(&state);
        if status.finished {
            break;
        }
        let actor = match status.to_act.choose(&mut rng) {
            Some(seat) => Actor::Seat(*seat),
            None => Actor::Umpire,
        };
        let legal = G::legal_actions(&state, actor);
        let Some(action) = legal.choose(&mut rng).cloned() else {
            // Nothing legal for the chosen actor: give the umpire a chance
            // (timeouts), else the game is stuck, which is a bug.
            let umpire = G::legal_actions(&state, Actor::Umpire);
            let action = umpire.choose(&mut rng).cloned().unwrap_or_else(|| {
                panic!(
                    "no legal action for {actor:?} nor the umpire in phase {}",
                    status.phase
                )
            });
            play_checked::<G>(&mut state, &mut events, &mut actions, Actor::Umpire, action);
            continue;
        };
        // Occasionally check a second listed action too, without playing it.
        if legal.len() > 1 && rng.random_bool(0.2) {
            let other = legal.choose(&mut rng).expect("non-empty");
            if let Err(violation) = G::decide(&state, actor, other) {
                panic!(
                    "listed legal action {} was refused: {violation}",
                    json_of(other)
                );
            }
        }
        play_checked::<G>(&mut state, &mut events, &mut actions, actor, action);
    }
    let finished = G::status(&state).finished;
    RandomGame {
        options,
        state,
        events,
        actions,
        finished,
    }
}

fn play_checked<G: Game>(
    state: &mut G::State,
    events: &mut Vec<G::Event>,
    actions: &mut Vec<(Actor<G::Seat>, G::Action)>,
    actor: Actor<G::Seat>,
    action: G::Action,
) {
    let produced = G::decide(state, actor, &action).unwrap_or_else(|violation| {
        panic!(
            "listed legal action {} by {actor:?} was refused: {violation}",
            json_of(&action)
        )
    });
    for event in &produced {
        G::apply(state, event);
    }
    events.extend(produced);
    actions.push((actor, action));
}

/// Folds events from the initial state, for replay checks.
pub fn fold<G: Game>(options: &G::Options, events: &[G::Event]) -> G::State {
    let mut state = G::initial_state(options);
    for event in events {
        G::apply(&mut state, event);
    }
    state
}

/// Serialised umpire view, used to compare states in replay checks.
pub fn umpire_view_json<G: Game>(state: &G::State) -> serde_json::Value {
    serde_json::to_value(G::view(state, Viewer::Umpire)).expect("view serialises")
}

/// A fresh random seed from a test's generator (for proptest-free loops).
pub fn next_seed(rng: &mut GameRng) -> u64 {
    rng.random()
}

/// `decide` as a value, so a secrecy checker can be shown to catch a
/// deliberately leaky one.
pub type Decide<G> = fn(
    &<G as Game>::State,
    Actor<<G as Game>::Seat>,
    &<G as Game>::Action,
) -> Result<Vec<<G as Game>::Event>, Violation>;

/// About `limit` items spread evenly over `items`.
pub fn spread<T: Clone>(items: &[T], limit: usize) -> Vec<T> {
    if items.len() <= limit {
        return items.to_vec();
    }
    let step = items.len().div_ceil(limit.max(1));
    items.iter().step_by(step).cloned().collect()
}

/// Feeds each of `actions` to `decide` as `actor` at `state`. Every refusal
/// must pass `check(violation, sent, context)`, `sent` being the action as
/// JSON; and each action must meet exactly the same answer (the same
/// refusal, or none) at every state of `variants` — the same position with
/// other secrets — since an answer that depends on a secret gives it away.
/// The same holds for what a dry run of the action tells `actor`
/// ([`crate::dry_run`]): a dry run may not say more than sending would.
pub fn assert_refusals_keep_secrets<G: Game>(
    decide: Decide<G>,
    state: &G::State,
    variants: &[G::State],
    actor: Actor<G::Seat>,
    actions: &[G::Action],
    context: &str,
    mut check: impl FnMut(&Violation, &str, &str),
) {
    for action in actions {
        let sent = serde_json::to_string(action).expect("action");
        let context = format!("{context}: {actor:?} sending {sent}");
        let refusal = decide(state, actor, action).err();
        if let Some(violation) = &refusal {
            check(violation, &sent, &context);
        }
        let dry_run = |state: &G::State| {
            crate::dry_run(decide(state, actor, action), &actor)
                .map_events(|event| serde_json::to_value(event).expect("event"))
        };
        let dry_run_here = dry_run(state);
        for variant in variants {
            assert_eq!(
                &refusal,
                &decide(variant, actor, action).err(),
                "{context}: the answer depends on a secret"
            );
            assert_eq!(
                dry_run_here,
                dry_run(variant),
                "{context}: the dry run's answer depends on a secret"
            );
        }
    }
}

/// Two other orders of a hidden sequence (the undealt part of a deck, say):
/// rotated by one, so every item moves, and reversed, so most move far.
pub fn other_orders<T: Clone>(hidden: &[T]) -> [Vec<T>; 2] {
    let mut rotated = hidden.to_vec();
    if !rotated.is_empty() {
        rotated.rotate_left(1);
    }
    let mut reversed = hidden.to_vec();
    reversed.reverse();
    [rotated, reversed]
}

/// `Game::redact_event`'s contract for what the service shows without
/// redacting: every event of `game`, judged at every state the game passed
/// through and at its end, is shown to the umpire whole, and so is every
/// event of a type in `Game::PUBLIC_EVENTS` to every viewer. Every listed
/// type must be one of the game's event types.
pub fn assert_unredacted_events_are_whole<G: Game>(game: &RandomGame<G>) {
    let schemas = G::schemas();
    let event_schema = schemas
        .components
        .iter()
        .find(|(name, _)| *name == schemas.event)
        .map(|(_, schema)| serde_json::to_string(schema).expect("schema serialises"))
        .expect("the event type's schema");
    for tag in G::PUBLIC_EVENTS {
        assert!(
            event_schema.contains(&format!("\"{tag}\"")),
            "`{tag}` in PUBLIC_EVENTS is not an event type of {}",
            G::ID
        );
    }
    let mut everyone = vec![Viewer::Umpire, Viewer::Spectator];
    everyone.extend(G::seats(&game.options).into_iter().map(Viewer::Seat));
    let mut state = G::initial_state(&game.options);
    for (index, event) in game.events.iter().enumerate() {
        G::apply(&mut state, event);
        let whole = serde_json::to_value(event).expect("event serialises");
        let public = whole
            .get("type")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|tag| G::PUBLIC_EVENTS.contains(&tag));
        let viewers = if public {
            &everyone[..]
        } else {
            &everyone[..1]
        };
        for now in [&state, &game.state] {
            for viewer in viewers {
                let shown = G::redact_event(now, event, *viewer)
                    .map(|shown| serde_json::to_value(shown).expect("event serialises"));
                assert_eq!(
                    shown.as_ref(),
                    Some(&whole),
                    "event {index} is not shown whole to {viewer:?}"
                );
            }
        }
    }
}

/// What the service keeps of a fold between folds gives back the same
/// match: at every version of `game`, the match folded so far, kept
/// (`DynMatch::snapshot`) and resumed (`DynGame::resume`), keeps the same
/// JSON, version, status, view for every viewer and legal actions for every
/// seat; and, folded on from there, ends where the game ended.
pub fn assert_snapshots_resume_every_state<G: Game>(game: &RandomGame<G>) {
    let registry = crate::Registry::new().register::<G>();
    let rules = registry.get(G::ID).expect("registered");
    let options = serde_json::to_value(&game.options).expect("options serialise");
    let events: Vec<serde_json::Value> = game
        .events
        .iter()
        .map(|event| serde_json::to_value(event).expect("event serialises"))
        .collect();
    let mut everyone = vec![Viewer::Umpire, Viewer::Spectator];
    everyone.extend(
        G::seats(&game.options)
            .into_iter()
            .map(|seat| Viewer::Seat(crate::Seat::name(&seat))),
    );
    let mut folded = rules.new_match(&options).expect("a match");
    let end = {
        let mut end = rules.new_match(&options).expect("a match");
        for event in &events {
            end.apply_json(event).expect("the game's own event folds");
        }
        end.snapshot()
    };
    for index in 0..=events.len() {
        let kept = folded.snapshot();
        let mut resumed = rules.resume(&options, &kept).unwrap_or_else(|error| {
            panic!("the snapshot at version {index} does not resume: {error}\n{kept}")
        });
        assert_eq!(resumed.snapshot(), kept, "version {index}");
        assert_eq!(resumed.version(), folded.version(), "version {index}");
        assert_eq!(resumed.status(), folded.status(), "version {index}");
        for viewer in &everyone {
            assert_eq!(
                resumed.view(viewer).ok(),
                folded.view(viewer).ok(),
                "{viewer:?} at version {index}"
            );
            if let Some(actor) = viewer.actor() {
                assert_eq!(
                    resumed.legal_actions(&actor.cloned()).ok(),
                    folded.legal_actions(&actor.cloned()).ok(),
                    "{viewer:?}'s legal actions at version {index}"
                );
            }
        }
        if index % 16 == 0 {
            for event in &events[index..] {
                resumed
                    .apply_json(event)
                    .expect("the game's own event folds");
            }
            assert_eq!(resumed.snapshot(), end, "folded on from version {index}");
        }
        if let Some(event) = events.get(index) {
            folded
                .apply_json(event)
                .expect("the game's own event folds");
        }
    }
}

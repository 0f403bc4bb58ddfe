//! Handling any game by id without knowing its types: JSON in, JSON out.
//!
//! The service and storage see games only through [`DynGame`] (the rules of a
//! game) and [`DynMatch`] (one game's state at one version). Both are
//! implemented once, generically, for every [`Game`].

use std::any::Any;
use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use utoipa::openapi::{RefOr, Schema};

use crate::game::{Game, ScoreSummary};
use crate::outside_the_rules::is_outside_the_rules;
use crate::rng::rng_from_seed;
use crate::status::StatusJson;
use crate::{Actor, Seat, Viewer, Violation};

/// Errors at the type-erased boundary.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GameError {
    #[error("there is no game called `{0}`")]
    UnknownGame(String),
    #[error("`{seat}` is not a seat of {game}")]
    UnknownSeat { game: &'static str, seat: String },
    /// JSON that does not have the shape of an action, event or options.
    #[error("malformed {what} for {game}: {message}")]
    Malformed {
        game: &'static str,
        what: Malformed,
        message: String,
    },
    #[error(transparent)]
    Violation(#[from] Violation),
}

/// What a piece of malformed JSON was meant to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    Action,
    Event,
    Options,
    /// A state kept by [`DynMatch::snapshot`], read by [`DynGame::resume`].
    Snapshot,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Malformed::Action => "action",
            Malformed::Event => "event",
            Malformed::Options => "options",
            Malformed::Snapshot => "snapshot",
        })
    }
}

/// Names of one game's component schemas, and the schemas themselves.
#[derive(Clone)]
pub struct GameSchemas {
    pub options: String,
    pub action: String,
    pub event: String,
    pub view: String,
    pub score: String,
    /// Every component these reference, including themselves.
    pub components: Vec<(String, RefOr<Schema>)>,
    /// Named example actions (`plant`, `bid`, …) for the spec.
    pub action_examples: Vec<(String, Value)>,
}

impl GameSchemas {
    /// Collects the schemas of a game's five public types.
    pub fn of<O, A, E, V, S>(action_examples: Vec<(String, Value)>) -> Self
    where
        O: utoipa::ToSchema,
        A: utoipa::ToSchema,
        E: utoipa::ToSchema,
        V: utoipa::ToSchema,
        S: utoipa::ToSchema,
    {
        let mut components = Vec::new();
        fn collect<T: utoipa::ToSchema>(out: &mut Vec<(String, RefOr<Schema>)>) -> String {
            let name = T::name().into_owned();
            out.push((name.clone(), T::schema()));
            T::schemas(out);
            name
        }
        let options = collect::<O>(&mut components);
        let action = collect::<A>(&mut components);
        let event = collect::<E>(&mut components);
        let view = collect::<V>(&mut components);
        let score = collect::<S>(&mut components);
        GameSchemas {
            options,
            action,
            event,
            view,
            score,
            components,
            action_examples,
        }
    }
}

/// The rules of one game, behind JSON.
pub trait DynGame: Send + Sync {
    fn id(&self) -> &'static str;
    fn rules_version(&self) -> u32;
    /// Every way this game refuses an action or options.
    fn violation_kinds(&self) -> &'static [crate::ViolationKind];
    /// Validates options (`null` means all defaults) and returns them with
    /// every default filled in, as they will be stored.
    fn validate_options(&self, options: &Value) -> Result<Value, GameError>;
    fn seats(&self, options: &Value) -> Result<Vec<String>, GameError>;
    /// The state before any event, for options returned by `validate_options`.
    fn new_match(&self, options: &Value) -> Result<Box<dyn DynMatch>, GameError>;
    /// The setup events for these options and seed.
    fn setup(&self, options: &Value, seed: u64) -> Result<Vec<Value>, GameError>;
    fn schemas(&self) -> GameSchemas;
    /// The state a [`DynMatch::snapshot`] of a match with these options
    /// kept: the same state at the same version, as if every event up to it
    /// had been folded again. A snapshot of another shape is refused
    /// ([`Malformed::Snapshot`]).
    fn resume(&self, options: &Value, snapshot: &Value) -> Result<Box<dyn DynMatch>, GameError>;
}

/// What a game's state is kept as between folds ([`DynMatch::snapshot`]):
/// bumped whenever a game's `State`, or the clock's, changes what its JSON
/// holds or means, so that snapshots written before are not resumed.
pub const SNAPSHOT_FORMAT: u32 = 1;

/// One game's state at one version.
pub trait DynMatch: Send + Sync {
    fn game_id(&self) -> &'static str;
    /// Number of events folded so far.
    fn version(&self) -> u64;
    fn apply_json(&mut self, event: &Value) -> Result<(), GameError>;
    /// Same as `apply_json`, straight from stored text (faster for bulk work).
    fn apply_str(&mut self, event: &str) -> Result<(), GameError>;
    /// Same as `apply_json`, with the event in its game's type taken from
    /// `decoded`, or decoded into it for the redactions that follow (as
    /// [`DynMatch::show_event`] does): a live stream folds and redacts the
    /// same latest events, and the instance that appended them holds them
    /// decoded already. `decoded` must only ever be given this one event.
    fn apply_decoded(&mut self, event: &Value, decoded: &DecodedEvent) -> Result<(), GameError>;
    fn decide(&self, actor: &Actor<String>, action: &Value) -> Result<Vec<Value>, GameError>;
    /// `decide`, and for an accepted action also the state after its events:
    /// what applying each event with `apply_json` gives, without reading the
    /// events back from the JSON just written (the service's append path).
    fn decide_and_apply(
        &self,
        actor: &Actor<String>,
        action: &Value,
    ) -> Result<Decision, GameError>;
    fn status(&self) -> StatusJson;
    fn view(&self, viewer: &Viewer<String>) -> Result<Value, GameError>;
    /// Whether every viewer sees `event` whole at every moment: its type is
    /// one of the game's [`crate::Game::PUBLIC_EVENTS`].
    fn is_public_event(&self, event: &Value) -> bool;
    /// The event as the viewer may see it now; `None` when it is hidden.
    fn redact_event(
        &self,
        event: &Value,
        viewer: &Viewer<String>,
    ) -> Result<Option<Value>, GameError> {
        Ok(
            match self.show_event(event, &DecodedEvent::default(), viewer)? {
                Shown::Whole => Some(event.clone()),
                Shown::Redacted(redacted) => Some(redacted),
                Shown::Hidden => None,
            },
        )
    }
    /// How the viewer may see the event now, without copying an event
    /// shown whole; for an event shown to several viewers in turn (a live
    /// stream's), the stored event is decoded into its game's type at most
    /// once, into `decoded`, and later calls with the same `decoded` redact
    /// that. `decoded` must only ever be given this one stored event.
    fn show_event(
        &self,
        event: &Value,
        decoded: &DecodedEvent,
        viewer: &Viewer<String>,
    ) -> Result<Shown, GameError>;
    /// [`DynMatch::show_event`], a redacted event given as its JSON
    /// ([`ShownText`]): written straight from the game's type, without a
    /// `Value` in between, for a viewer that only writes it (a live stream).
    fn show_event_text(
        &self,
        event: &Value,
        decoded: &DecodedEvent,
        viewer: &Viewer<String>,
    ) -> Result<ShownText, GameError> {
        Ok(match self.show_event(event, decoded, viewer)? {
            Shown::Whole => ShownText::Whole,
            Shown::Redacted(redacted) => ShownText::redacted(to_raw(&redacted)),
            Shown::Hidden => ShownText::Hidden,
        })
    }
    fn legal_actions(&self, actor: &Actor<String>) -> Result<Vec<Value>, GameError>;
    /// This game's seats under its options, in table order: the one list
    /// every check of a seat's name reads, and every seat the clock shows.
    fn seats(&self) -> &[String];
    /// Whether `seat` is one of this game's seats under its options.
    fn has_seat(&self, seat: &str) -> bool {
        self.seats().iter().any(|name| name == seat)
    }
    /// The umpire's `timeout` of `seat` in this game (what the clock sends
    /// when the seat's time runs out).
    fn timeout_action(&self, seat: &str) -> Result<Value, GameError>;
    /// Whether the recorded `action` of a seat ends its move on the clock
    /// ([`Game::ends_move`]); an action the game cannot read does.
    fn ends_move(&self, action: &Value) -> bool;
    fn score(&self, viewer: &Viewer<String>) -> Result<Value, GameError>;
    fn summary(&self) -> ScoreSummary;
    fn clone_box(&self) -> Box<dyn DynMatch>;
    /// The whole state and its version as JSON, for [`DynGame::resume`]:
    /// what the service keeps of a fold between folds. Umpire-only: it
    /// holds every secret.
    fn snapshot(&self) -> Value;
    /// The bytes this match holds in memory, itself and what its state
    /// holds on the heap: what a copy of it costs.
    fn bytes(&self) -> usize;
}

impl Clone for Box<dyn DynMatch> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// How one viewer is shown a stored event ([`DynMatch::show_event`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Shown {
    /// As stored: to the umpire, and a public event to everyone.
    Whole,
    /// Redacted for the viewer.
    Redacted(Value),
    /// Not at all: a placeholder ([`hidden_event`]) stands in its place.
    Hidden,
}

/// How one viewer is shown a stored event, a redacted event as its JSON
/// ([`DynMatch::show_event_text`]).
#[derive(Debug, Clone)]
pub enum ShownText {
    /// As stored.
    Whole,
    /// Redacted for the viewer: the JSON `serde_json` writes of
    /// [`Shown::Redacted`]'s value, and that value's `type`.
    Redacted {
        json: Arc<RawValue>,
        event_type: String,
    },
    /// Not at all.
    Hidden,
}

impl PartialEq for ShownText {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ShownText::Whole, ShownText::Whole) | (ShownText::Hidden, ShownText::Hidden) => true,
            (
                ShownText::Redacted { json, event_type },
                ShownText::Redacted {
                    json: other_json,
                    event_type: other_type,
                },
            ) => json.get() == other_json.get() && event_type == other_type,
            _ => false,
        }
    }
}

impl ShownText {
    /// A redacted event's JSON, with its type read from it: the first key
    /// of a game's event (an internally tagged enum writes its tag first),
    /// else found by reading the JSON.
    fn redacted(json: Box<RawValue>) -> ShownText {
        let first = json
            .get()
            .strip_prefix("{\"type\":\"")
            .and_then(|rest| rest.split_once('"'))
            .map(|(tag, _)| tag)
            .filter(|tag| !tag.contains('\\'));
        let event_type = match first {
            Some(tag) => tag.to_string(),
            None => serde_json::from_str::<Value>(json.get())
                .map(|value| event_type(&value).to_string())
                .unwrap_or_else(|_| "unknown".to_string()),
        };
        ShownText::Redacted {
            json: Arc::from(json),
            event_type,
        }
    }
}

/// One stored event decoded into its game's type, once, for all the
/// viewers it is redacted for (see [`DynMatch::show_event`]):
/// empty until the first redaction that needs it. Cheap to clone; clones
/// share the decoded event.
#[derive(Clone, Default)]
pub struct DecodedEvent(Arc<OnceLock<Box<dyn Any + Send + Sync>>>);

impl DecodedEvent {
    /// An event its game has just decided, decoded already: the answer to
    /// the action redacts it without reading its JSON again.
    fn of<G: Game>(event: G::Event) -> DecodedEvent {
        DecodedEvent(Arc::new(OnceLock::from(
            Box::new(event) as Box<dyn Any + Send + Sync>
        )))
    }

    /// Whether it holds its event decoded already.
    pub fn is_decoded(&self) -> bool {
        self.0.get().is_some()
    }

    /// The decoded event, decoding `stored` if no one has yet.
    fn get_or_decode<G: Game>(&self, stored: &Value) -> Result<&G::Event, GameError> {
        if self.0.get().is_none() {
            let event: G::Event = from_json::<G, _>(stored, Malformed::Event)?;
            // Another viewer's redaction may have set it meanwhile: the same
            // event, decoded from the same stored JSON.
            let _ = self.0.set(Box::new(event));
        }
        self.0
            .get()
            .and_then(|event| event.downcast_ref::<G::Event>())
            .ok_or_else(|| malformed::<G>(Malformed::Event, "decoded as another game's event"))
    }
}

/// An accepted action: its events, as they will be stored, and the state
/// after them.
pub struct Decision {
    pub events: Vec<Value>,
    /// The same events in their game's type, where the game decided them
    /// (empty for the clock's and the seat tokens' own events): for the
    /// answer's redactions.
    pub decoded: Vec<DecodedEvent>,
    pub after: Box<dyn DynMatch>,
}

impl Decision {
    /// One event recorded outside the game's rules (a reissue, a ruling):
    /// folded onto a copy of `game`, which passes over it.
    pub fn outside_the_rules(game: &dyn DynMatch, event: Value) -> Result<Decision, GameError> {
        let mut after = game.clone_box();
        after.apply_json(&event)?;
        Ok(Decision {
            events: vec![event],
            decoded: Vec::new(),
            after,
        })
    }
}

/// The `type` of the placeholder that stands for an event the viewer may not
/// see (`{"type": "hidden"}`): every viewer's sequence is then gap-free, and
/// a hidden event tells no more than that something happened. No game may
/// name an event type so.
pub const HIDDEN_EVENT_TYPE: &str = "hidden";

/// The placeholder payload for an event the viewer may not see.
pub fn hidden_event() -> Value {
    serde_json::json!({ "type": HIDDEN_EVENT_TYPE })
}

/// The event's `type` tag, used as the stored event type.
pub fn event_type(event: &Value) -> &str {
    type_tag(event).unwrap_or("unknown")
}

/// The event's `type` tag, if it has one. An event has a few keys: looked
/// for one by one, which costs a fraction of hashing the key to look it up
/// (asked of every event a live stream sends).
fn type_tag(event: &Value) -> Option<&str> {
    let object = event.as_object()?;
    let tag = if object.len() <= 16 {
        object
            .iter()
            .find_map(|(key, value)| (key == "type").then_some(value))
    } else {
        object.get("type")
    };
    tag?.as_str()
}

struct Erased<G>(PhantomData<fn() -> G>);

struct Match<G: Game> {
    state: G::State,
    version: u64,
    /// The seats of this game's options, in table order: the one list every
    /// check of a seat's name (reissue, import, audit, extra time) reads.
    seats: Arc<[String]>,
}

fn malformed<G: Game>(what: Malformed, error: impl std::fmt::Display) -> GameError {
    GameError::Malformed {
        game: G::ID,
        what,
        message: error.to_string(),
    }
}

/// As [`to_json`], written as JSON text: the same text `serde_json`
/// writes of [`to_json`]'s value (keys in the same order: maps keep theirs).
fn to_raw<T: Serialize + ?Sized>(value: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).expect("game types serialise to JSON")
}

fn to_json<T: Serialize>(value: &T) -> Value {
    // Serialising our own derived types into a Value cannot fail: they have
    // string keys only and no custom serialisers that error.
    serde_json::to_value(value).expect("game types serialise to JSON")
}

/// Reads a typed value straight from the JSON tree, without copying it
/// first (`serde_json::from_value` takes the tree by value): on the action
/// path every new event is read twice, and the copies showed in its profile.
fn from_json<G: Game, T: DeserializeOwned>(value: &Value, what: Malformed) -> Result<T, GameError> {
    T::deserialize(value).map_err(|e| malformed::<G>(what, e))
}

fn parse_options<G: Game>(options: &Value) -> Result<G::Options, GameError> {
    if options.is_null() {
        return Ok(G::Options::default());
    }
    from_json::<G, _>(options, Malformed::Options)
}

fn parse_seat<G: Game>(name: &str) -> Result<G::Seat, GameError> {
    G::Seat::parse(name).ok_or_else(|| GameError::UnknownSeat {
        game: G::ID,
        seat: name.to_string(),
    })
}

fn parse_actor<G: Game>(actor: &Actor<String>) -> Result<Actor<G::Seat>, GameError> {
    Ok(match actor {
        Actor::Seat(name) => Actor::Seat(parse_seat::<G>(name)?),
        Actor::Umpire => Actor::Umpire,
    })
}

fn parse_viewer<G: Game>(viewer: &Viewer<String>) -> Result<Viewer<G::Seat>, GameError> {
    Ok(match viewer {
        Viewer::Seat(name) => Viewer::Seat(parse_seat::<G>(name)?),
        Viewer::Umpire => Viewer::Umpire,
        Viewer::Spectator => Viewer::Spectator,
    })
}

impl<G: Game> DynGame for Erased<G> {
    fn id(&self) -> &'static str {
        G::ID
    }
    fn rules_version(&self) -> u32 {
        G::RULES_VERSION
    }
    fn violation_kinds(&self) -> &'static [crate::ViolationKind] {
        G::VIOLATIONS
    }
    fn validate_options(&self, options: &Value) -> Result<Value, GameError> {
        let options = G::validate_options(parse_options::<G>(options)?)?;
        Ok(to_json(&options))
    }
    fn seats(&self, options: &Value) -> Result<Vec<String>, GameError> {
        let options = parse_options::<G>(options)?;
        Ok(G::seats(&options).iter().map(Seat::name).collect())
    }
    fn new_match(&self, options: &Value) -> Result<Box<dyn DynMatch>, GameError> {
        let options = parse_options::<G>(options)?;
        Ok(Box::new(Match::<G> {
            state: G::initial_state(&options),
            version: 0,
            seats: G::seats(&options).iter().map(Seat::name).collect(),
        }))
    }
    fn setup(&self, options: &Value, seed: u64) -> Result<Vec<Value>, GameError> {
        let options = parse_options::<G>(options)?;
        let mut rng = rng_from_seed(seed);
        Ok(G::setup(&options, &mut rng).iter().map(to_json).collect())
    }
    fn schemas(&self) -> GameSchemas {
        G::schemas()
    }
    fn resume(&self, options: &Value, snapshot: &Value) -> Result<Box<dyn DynMatch>, GameError> {
        let options = parse_options::<G>(options)?;
        let kept: Snapshot<G::State> = from_json::<G, _>(snapshot, Malformed::Snapshot)?;
        Ok(Box::new(Match::<G> {
            state: kept.state,
            version: kept.version,
            seats: G::seats(&options).iter().map(Seat::name).collect(),
        }))
    }
}

/// A match's state and version as [`DynMatch::snapshot`] writes them.
#[derive(Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Snapshot<S> {
    version: u64,
    state: S,
}

impl<G: Game> Match<G> {
    /// How `viewer` may see the stored `event` now: `None` when whole (the
    /// umpire, or a public event: `Game::redact_event`'s contract, shown as
    /// stored), else the redaction written by `write`, `Some(None)` when
    /// hidden. The event is decoded into `decoded` at most once.
    fn redacted<R>(
        &self,
        event: &Value,
        decoded: &DecodedEvent,
        viewer: &Viewer<String>,
        write: impl FnOnce(&G::Event) -> R,
    ) -> Result<Option<Option<R>>, GameError> {
        let viewer = parse_viewer::<G>(viewer)?;
        if matches!(viewer, Viewer::Umpire) || self.is_public_event(event) {
            return Ok(None);
        }
        let event = decoded.get_or_decode::<G>(event)?;
        Ok(Some(
            G::redact_event(&self.state, event, viewer).map(|redacted| write(&redacted)),
        ))
    }

    fn apply_typed(&mut self, event: &G::Event) {
        G::apply(&mut self.state, event);
        self.version += 1;
    }

    fn decide_typed(
        &self,
        actor: &Actor<String>,
        action: &Value,
    ) -> Result<Vec<G::Event>, GameError> {
        let actor = parse_actor::<G>(actor)?;
        let action: G::Action = from_json::<G, _>(action, Malformed::Action)?;
        Ok(G::decide(&self.state, actor, &action)?)
    }
}

impl<G: Game> DynMatch for Match<G> {
    fn game_id(&self) -> &'static str {
        G::ID
    }
    fn version(&self) -> u64 {
        self.version
    }
    fn apply_json(&mut self, event: &Value) -> Result<(), GameError> {
        if type_tag(event).is_some_and(is_outside_the_rules) {
            // The clock's own event, a seat's token reissued or the
            // umpire's ruling: a place in the log, nothing in the game.
            self.version += 1;
            return Ok(());
        }
        let event: G::Event = from_json::<G, _>(event, Malformed::Event)?;
        self.apply_typed(&event);
        Ok(())
    }
    fn apply_decoded(&mut self, event: &Value, decoded: &DecodedEvent) -> Result<(), GameError> {
        if type_tag(event).is_some_and(is_outside_the_rules) {
            self.version += 1;
            return Ok(());
        }
        let event = decoded.get_or_decode::<G>(event)?;
        self.apply_typed(event);
        Ok(())
    }
    fn apply_str(&mut self, event: &str) -> Result<(), GameError> {
        match serde_json::from_str::<G::Event>(event) {
            Ok(event) => self.apply_typed(&event),
            // Only when the game does not know the event: is it the clock's (or
            // another event every game shares)?
            Err(error) => match serde_json::from_str::<Value>(event) {
                Ok(value) if type_tag(&value).is_some_and(is_outside_the_rules) => {
                    self.version += 1
                }
                _ => return Err(malformed::<G>(Malformed::Event, error)),
            },
        }
        Ok(())
    }
    fn decide(&self, actor: &Actor<String>, action: &Value) -> Result<Vec<Value>, GameError> {
        Ok(self
            .decide_typed(actor, action)?
            .iter()
            .map(to_json)
            .collect())
    }
    fn decide_and_apply(
        &self,
        actor: &Actor<String>,
        action: &Value,
    ) -> Result<Decision, GameError> {
        let events = self.decide_typed(actor, action)?;
        let mut after = Match::<G> {
            state: self.state.clone(),
            version: self.version,
            seats: self.seats.clone(),
        };
        for event in &events {
            after.apply_typed(event);
        }
        Ok(Decision {
            events: events.iter().map(to_json).collect(),
            decoded: events.into_iter().map(DecodedEvent::of::<G>).collect(),
            after: Box::new(after),
        })
    }
    fn status(&self) -> StatusJson {
        let status = G::status(&self.state);
        StatusJson {
            phase: status.phase.to_string(),
            finished: status.finished,
            to_act: status.to_act.iter().map(Seat::name).collect(),
            clock: None,
        }
    }
    fn view(&self, viewer: &Viewer<String>) -> Result<Value, GameError> {
        Ok(to_json(&G::view(&self.state, parse_viewer::<G>(viewer)?)))
    }
    fn is_public_event(&self, event: &Value) -> bool {
        type_tag(event)
            .is_some_and(|tag| G::PUBLIC_EVENTS.contains(&tag) || is_outside_the_rules(tag))
    }
    fn show_event(
        &self,
        event: &Value,
        decoded: &DecodedEvent,
        viewer: &Viewer<String>,
    ) -> Result<Shown, GameError> {
        Ok(match self.redacted(event, decoded, viewer, to_json)? {
            None => Shown::Whole,
            Some(Some(redacted)) => Shown::Redacted(redacted),
            Some(None) => Shown::Hidden,
        })
    }
    fn show_event_text(
        &self,
        event: &Value,
        decoded: &DecodedEvent,
        viewer: &Viewer<String>,
    ) -> Result<ShownText, GameError> {
        Ok(match self.redacted(event, decoded, viewer, to_raw)? {
            None => ShownText::Whole,
            Some(Some(redacted)) => ShownText::redacted(redacted),
            Some(None) => ShownText::Hidden,
        })
    }
    fn legal_actions(&self, actor: &Actor<String>) -> Result<Vec<Value>, GameError> {
        let actor = parse_actor::<G>(actor)?;
        Ok(G::legal_actions(&self.state, actor)
            .iter()
            .map(to_json)
            .collect())
    }
    fn seats(&self) -> &[String] {
        &self.seats
    }
    fn timeout_action(&self, seat: &str) -> Result<Value, GameError> {
        Ok(to_json(&G::timeout(parse_seat::<G>(seat)?)))
    }
    fn ends_move(&self, action: &Value) -> bool {
        from_json::<G, G::Action>(action, Malformed::Action)
            .map_or(true, |action| G::ends_move(&action))
    }
    fn score(&self, viewer: &Viewer<String>) -> Result<Value, GameError> {
        Ok(to_json(&G::score(&self.state, parse_viewer::<G>(viewer)?)))
    }
    fn summary(&self) -> ScoreSummary {
        G::summary(&self.state)
    }
    fn clone_box(&self) -> Box<dyn DynMatch> {
        Box::new(Match::<G> {
            state: self.state.clone(),
            version: self.version,
            seats: self.seats.clone(),
        })
    }
    fn snapshot(&self) -> Value {
        to_json(&Snapshot {
            version: self.version,
            state: &self.state,
        })
    }

    fn bytes(&self) -> usize {
        // The seats are shared by every match of the game: not counted.
        std::mem::size_of::<Self>() + get_size2::GetSize::get_heap_size(&self.state)
    }
}

/// Every game the service knows, by id.
#[derive(Clone, Default)]
pub struct Registry {
    games: BTreeMap<&'static str, Arc<dyn DynGame>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.games.keys()).finish()
    }
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a game. Registering the same id twice is a programming error.
    pub fn register<G: Game>(mut self) -> Self {
        let previous = self.games.insert(G::ID, Arc::new(Erased::<G>(PhantomData)));
        assert!(previous.is_none(), "game `{}` registered twice", G::ID);
        self
    }

    pub fn get(&self, id: &str) -> Result<&Arc<dyn DynGame>, GameError> {
        self.games
            .get(id)
            .ok_or_else(|| GameError::UnknownGame(id.to_string()))
    }

    pub fn ids(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.games.keys().copied()
    }

    pub fn games(&self) -> impl Iterator<Item = &Arc<dyn DynGame>> + '_ {
        self.games.values()
    }

    /// Folds a whole stream of stored events into a match (tests' shortcut;
    /// the service folds incrementally).
    #[cfg(feature = "testing")]
    pub fn replay<'a>(
        &self,
        game_id: &str,
        options: &Value,
        events: impl IntoIterator<Item = &'a Value>,
    ) -> Result<Box<dyn DynMatch>, GameError> {
        let mut state = self.get(game_id)?.new_match(options)?;
        for event in events {
            state.apply_json(event)?;
        }
        Ok(state)
    }
}

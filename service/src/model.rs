//! What the service is asked and answers: the bodies the API sends and
//! receives, described for the OpenAPI document.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;
use umpire_domain::clock::{ClockSettings, RequestedClock};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use umpire_domain::chain::CanonicalJson;
use umpire_domain::StatusJson;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ErrorBody;
use crate::schemas::{AnyAction, AnyEvent, AnyOptions, AnyScore, AnyView};

#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"game": "arboretum", "options": {"dm_advantage": "red"}, "seed": 42}))]
pub struct CreateGameRequest {
    /// Which game: one of the registered games (`GET /v1/game-types`).
    #[schema(value_type = GameName)]
    pub game: String,
    #[serde(default)]
    #[schema(value_type = Option<AnyOptions>)]
    pub options: Value,
    /// RNG seed for the deals (umpire-only information); random if absent.
    /// At most 2^63 − 1, so that every client's 64-bit integer holds it.
    #[serde(default)]
    #[schema(maximum = 9223372036854775807_i64)]
    pub seed: Option<u64>,
    /// A clock for every seat (any game): its time per move and reserve.
    /// Without one, no time runs and only the umpire times seats out. A
    /// time out of range (negative too) is refused 422 `clock.invalid_time`.
    #[serde(default)]
    #[schema(value_type = Option<ClockSettings>)]
    pub clock: Option<RequestedClock>,
}

/// A registered game, by the name `create_game` takes: in the document, a
/// string enum read from the registry, so that registering a game adds its
/// name here. (Requests still carry a string: a name no game has is
/// refused 422 `unknown_game`, in the error envelope.)
pub struct GameName;

impl utoipa::PartialSchema for GameName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        let names: Vec<String> = umpire_games::registry()
            .games()
            .map(|game| game.id().to_string())
            .collect();
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(names))
            .description(Some("A registered game, as `/v1/game-types` lists them."))
            .examples(["arboretum"])
            .into()
    }
}

impl ToSchema for GameName {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("GameName")
    }
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct CreatedGame {
    pub id: Uuid,
    pub game: String,
    pub version: u64,
    /// Shown once: authorises umpire actions and sees everything.
    pub umpire_token: String,
    /// Shown once: one token per seat.
    pub seat_tokens: BTreeMap<String, String>,
    /// Shown once: one invitation per seat, a link a person opens to take
    /// the seat (its one-time code gives a new token of the seat), so that
    /// no token travels in a link. Empty for an imported game.
    #[serde(default)]
    pub invitations: BTreeMap<String, crate::invitation_codes::Invitation>,
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct GameSummary {
    pub id: Uuid,
    pub game: String,
    pub version: u64,
    pub rules_version: u32,
    pub seats: Vec<String>,
    pub status: StatusJson,
    /// RFC 3339.
    pub created_at: String,
    /// Whom the token sent with the request makes the caller: `spectator`
    /// (no token), `umpire`, or `seat:<name>`. A page or client that was
    /// handed a token learns here which seat it plays.
    #[schema(example = "seat:red")]
    pub viewer: String,
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"action": {"type": "plant", "card": "Q7", "cell": "D5"}, "expected_version": 12}))]
pub struct SubmitActionRequest {
    #[schema(value_type = AnyAction)]
    pub action: Value,
    /// Refuse with 409 unless the game is at exactly this version. Without
    /// it, the server decides against the latest version and retries a lost
    /// race itself.
    #[serde(default)]
    pub expected_version: Option<u64>,
}

/// A stored event as the viewer may see it.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
pub struct EventEnvelope {
    pub seq: u64,
    #[serde(rename = "type")]
    pub event_type: String,
    /// `system`, `umpire`, `clock` (a timeout the clock recorded when a
    /// seat's deadline passed) or `seat:<name>`; `hidden` for a hidden
    /// event (type `hidden`) that was not recorded by the system.
    pub actor: String,
    pub recorded_at: String,
    pub rules_version: u32,
    #[schema(value_type = AnyEvent)]
    pub payload: AnswerJson,
    /// The action that caused the event: shown to the umpire and to the seat
    /// that sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<AnyAction>)]
    pub action: Option<AnswerJson>,
    /// Hash chain links, umpire only: a hash over a hidden payload could be
    /// matched against guesses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prev_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

/// A payload or action in an answer: the canonical JSON the append encoded
/// for the hash (written as it is: the event is not encoded again), or a
/// value (a redacted event, or one read back from the store). Either
/// reads back as a value.
#[derive(Debug, Clone)]
pub enum AnswerJson {
    Encoded(CanonicalJson),
    Shared(Arc<Value>),
    Value(Value),
    /// A redaction's JSON, as the game's type wrote it.
    Text(Arc<RawValue>),
}

impl AnswerJson {
    /// The JSON as a value (decoded again from an encoding: for tests and
    /// the rare reader that looks inside, never on the answer's path).
    pub fn to_value(&self) -> Value {
        match self {
            AnswerJson::Encoded(json) => {
                serde_json::from_str(json.as_str()).expect("canonical JSON is JSON")
            }
            AnswerJson::Shared(value) => Value::clone(value),
            AnswerJson::Value(value) => value.clone(),
            AnswerJson::Text(json) => {
                serde_json::from_str(json.get()).expect("a redaction's JSON is JSON")
            }
        }
    }
}

impl Serialize for AnswerJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AnswerJson::Encoded(json) => json.serialize(serializer),
            AnswerJson::Shared(value) => value.serialize(serializer),
            AnswerJson::Value(value) => value.serialize(serializer),
            AnswerJson::Text(json) => json.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for AnswerJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(AnswerJson::Value)
    }
}

/// One event of a live stream (`data:` of an SSE message whose `id:` is
/// its `seq`): the entry `/events` gives this viewer, with the game's
/// status after the event.
// Live streams write it through `ShownEvent::streamed`, field by field:
// serde's `flatten` writes through a map serializer, a cost paid for every
// event of every live stream. This derived form is the reference a test
// holds that to. (Not a doc comment: it would enter the OpenAPI document.)
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
pub struct StreamEvent {
    /// The game's type (`arboretum`, `treeblox`, …): it tells a client which
    /// game's shapes the rest of this body has.
    pub game: String,
    #[serde(flatten)]
    pub event: EventEnvelope,
    /// Who must act, the phase and whether the game is over, after this event.
    pub status: StatusJson,
}

/// The last message of a live stream (SSE `event: end`): why the server
/// ended it, and where to resume.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
pub struct StreamEnd {
    /// `finished` (the game is over and every event was sent), `idle` (no
    /// event for the idle limit), `lifetime` (the stream's total limit),
    /// `stopping` (the instance is stopping: resume on another, or here
    /// once it is back), `revoked` (the umpire reissued this seat's token:
    /// the stream ends after the reissue's event, and the old token opens
    /// no other) or
    /// `error` (see `error`). Only `finished` and `revoked` mean there is
    /// nothing more for this client.
    pub reason: String,
    /// The version of the last event sent: resume with `Last-Event-ID` or
    /// `?after=` set to it.
    pub after: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<StatusJson>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct ActionAccepted {
    /// The game's type (`arboretum`, `treeblox`, …): it tells a client which
    /// game's shapes the rest of this body has.
    pub game: String,
    /// The game's version after the action.
    pub version: u64,
    pub events: Vec<EventEnvelope>,
    pub status: StatusJson,
}

/// An [`ActionAccepted`] as its JSON, as the service writes it (piece by
/// piece, see `projection/answer.rs`): sent as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionAcceptedJson(pub String);

/// An [`EventPage`] as its JSON, as the service writes it (piece by piece,
/// see `projection/events_json.rs`): sent as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct EventPageJson(pub String);

#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct ActionCheck {
    /// The game's type (`arboretum`, `treeblox`, …): it tells a client which
    /// game's shapes the rest of this body has.
    pub game: String,
    pub legal: bool,
    /// The version the action was checked against.
    pub at: u64,
    /// What the action would produce, for the umpire only; empty for a seat,
    /// since consequences can reveal secrets (a second bid reveals the
    /// first) that a seat may learn only by committing to the action.
    #[schema(value_type = Vec<AnyEvent>)]
    pub events: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub violation: Option<ErrorBody>,
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct StateResponse {
    pub id: Uuid,
    pub game: String,
    pub version: u64,
    pub status: StatusJson,
    #[schema(value_type = AnyView)]
    pub state: Value,
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct ScoreResponse {
    pub id: Uuid,
    pub game: String,
    pub version: u64,
    #[serde(rename = "final")]
    pub is_final: bool,
    #[schema(value_type = AnyScore)]
    pub score: Value,
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct EventPage {
    pub id: Uuid,
    /// The game's type (`arboretum`, `treeblox`, …): it tells a client which
    /// game's shapes the rest of this body has.
    pub game: String,
    /// The game's current version.
    pub version: u64,
    pub events: Vec<EventEnvelope>,
    /// Pass as `after` for the next page; absent when this is the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_after: Option<u64>,
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct LegalActions {
    /// The game's type (`arboretum`, `treeblox`, …): it tells a client which
    /// game's shapes the rest of this body has.
    pub game: String,
    pub version: u64,
    /// Legal actions for the caller now: complete where the space is small,
    /// a varied sample where it is huge (bids, multi-placement turns).
    #[schema(value_type = Vec<AnyAction>)]
    pub actions: Vec<Value>,
}

/// A game this service can umpire.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct GameType {
    /// Its id, as `create_game` takes it.
    #[schema(example = "arboretum")]
    pub game: String,
    /// The rules version a game created now is recorded under.
    pub rules_version: u32,
    /// The seats of a game with the default options (Draft & Cider's
    /// depend on its `players` option).
    pub seats: Vec<String>,
    /// Every option, with its default: what `options: {}` means.
    #[schema(value_type = AnyOptions)]
    pub default_options: Value,
    /// The options' schema, by name in this document's components
    /// (`#/components/schemas/<name>`).
    #[schema(example = "ArboretumOptions")]
    pub options_schema: String,
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct GameTypes {
    pub games: Vec<GameType>,
    /// The clock any game may be created with (`create_game`'s `clock`).
    pub clock: ClockOffer,
}

/// The clock every game may be created with: a time per move for each
/// seat each time the game waits for it, and an optional reserve per seat
/// used once a move runs over (never refilled). Simultaneous phases run
/// every waited-for seat's clock at once (`docs/rules/clock.md`).
#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct ClockOffer {
    /// The settings' schema, by name in this document's components.
    #[schema(example = "ClockSettings")]
    pub settings_schema: String,
    /// The shortest time per move, in milliseconds.
    pub min_per_move_ms: u64,
    /// The longest time per move or reserve, in milliseconds (30 days).
    pub max_ms: u64,
    /// Settings a game could be created with.
    pub example: ClockSettings,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What serde's `flatten` would write, field for field: the entry of
    /// `/events` between `game` and `status`.
    fn flattened(event: &StreamEvent) -> String {
        let mut object = serde_json::Map::new();
        object.insert("game".into(), json!(event.game));
        let envelope = serde_json::to_value(&event.event).unwrap();
        object.extend(envelope.as_object().unwrap().clone());
        object.insert(
            "status".into(),
            serde_json::to_value(&event.status).unwrap(),
        );
        serde_json::to_string(&object).unwrap()
    }

    /// Given a stream event with and without the umpire's and the actor's
    /// fields, its JSON is the game, the `/events` entry's fields in their
    /// order, and the status, and it reads back as itself.
    #[test]
    fn a_stream_event_is_written_as_the_game_its_events_entry_and_the_status() {
        let whole = StreamEvent {
            game: "treeblox".into(),
            event: EventEnvelope {
                seq: 7,
                event_type: "cube_placed".into(),
                actor: "seat:dark".into(),
                recorded_at: "2026-11-25T03:06:07.500000Z".into(),
                rules_version: 1,
                payload: AnswerJson::Value(
                    json!({"type": "cube_placed", "cell": "a1", "note": "quote \" here"}),
                ),
                action: Some(AnswerJson::Shared(Arc::new(json!({"type": "grow"})))),
                prev_hash: Some("ab".repeat(32)),
                hash: Some("cd".repeat(32)),
            },
            status: StatusJson {
                phase: "growth".into(),
                finished: false,
                to_act: vec!["light".into()],
                clock: None,
            },
        };
        let mut spectators = whole.clone();
        spectators.event.action = None;
        spectators.event.prev_hash = None;
        spectators.event.hash = None;
        for event in [whole, spectators] {
            let written = serde_json::to_string(&event).unwrap();
            assert_eq!(written, flattened(&event));
            let read: StreamEvent = serde_json::from_str(&written).unwrap();
            assert_eq!(serde_json::to_string(&read).unwrap(), written);
        }
    }
}

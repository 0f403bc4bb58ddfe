//! What an append is made of: the new events, the head they link to, and the
//! events linked into the hash chain, ready to insert.
//!
//! A [`Head`] is where a game's log ends — its version and the hash the next
//! event must link to. Only the store makes one, from what it has just read
//! or written, and an append names the head it extends; so no caller can make
//! the store write a gap (a version beyond the log's end) or a wrong link (a
//! hash that is not the last event's). A head that is merely out of date is
//! harmless: the `(game_id, seq)` primary key refuses the append as a
//! conflict.

use std::sync::Arc;

use chrono::{DateTime, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use umpire_domain::chain::{CanonicalJson, GENESIS_HASH};
use umpire_domain::record::{format_recorded_at, Encoded};
use umpire_domain::RecordedEvent;
use uuid::Uuid;

/// An event about to be stored.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub event_type: String,
    pub payload: Value,
    /// An actor label ([`umpire_domain::actor_label`]): `system`, `umpire`,
    /// `clock` or `seat:<name>`.
    pub actor: String,
    /// The action that caused it; `Value::Null` for setup events. Shared
    /// by the events of one action.
    pub action: Arc<Value>,
    pub rules_version: u32,
}

impl NewEvent {
    /// The events one decision made, each `type`d by its payload, all by
    /// `actor` for `action` under `rules_version`.
    pub fn all(
        payloads: Vec<Value>,
        actor: &str,
        action: &Arc<Value>,
        rules_version: u32,
    ) -> Vec<NewEvent> {
        payloads
            .into_iter()
            .map(|payload| NewEvent {
                event_type: umpire_domain::erased::event_type(&payload).to_string(),
                payload,
                actor: actor.to_string(),
                action: Arc::clone(action),
                rules_version,
            })
            .collect()
    }
}

/// An `Idempotency-Key` with the hash of the request it came with and the
/// answer to store for it. Keys belong to the actor who sent them: the same
/// key from two actors of a game names two requests.
#[derive(Debug, Clone)]
pub struct IdempotentRequest {
    /// The sender's actor label ([`umpire_domain::actor_label`]): `umpire` or
    /// `seat:<name>`.
    pub actor: String,
    pub key: String,
    pub request_hash: String,
    pub answer: IdempotentAnswer,
}

/// The answer an idempotent append stores with its key: where its events
/// start and the version after them, enough to answer a retry again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdempotentAnswer {
    pub first_seq: u64,
    pub version: u64,
}

/// How a game ended, told to the store with the append (or the import)
/// whose events end it, so that the list of games can say which games are
/// finished without folding any (migrations/V8: `game_results`). Only the
/// rules can tell that a game is over; the store keeps what it is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameResult {
    /// The final score's winners by seat name: one, several for a shared
    /// win, none for a draw or a solo game.
    pub winners: Vec<String>,
}

/// Where a game's log ended when the store last read or wrote it. Made only
/// by the store (its fields are private), so an append always links to a real
/// event of the game it names — or to nothing, at version 0.
///
/// ```compile_fail
/// // A head cannot be made up by a caller:
/// let head = umpire_storage::Head { game_id: uuid::Uuid::nil(), version: 7, hash: String::new() };
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    game_id: Uuid,
    version: u64,
    hash: String,
}

impl Head {
    /// The start of a game's log: no event yet. Always a true head — if the
    /// log has events, an append at it is a conflict, never a second event 1.
    pub fn start(game_id: Uuid) -> Head {
        Head {
            game_id,
            version: 0,
            hash: GENESIS_HASH.to_string(),
        }
    }

    /// The head after `events`, read or written as the log's next events.
    pub(crate) fn after(&self, events: &[RecordedEvent]) -> Head {
        match events.last() {
            Some(last) => Head {
                game_id: self.game_id,
                version: last.seq,
                hash: last.hash.clone(),
            },
            None => self.clone(),
        }
    }

    pub fn game_id(&self) -> Uuid {
        self.game_id
    }

    /// How many events the log had.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The hash the next event links to.
    pub fn hash(&self) -> &str {
        &self.hash
    }
}

/// One append, linked and ready to insert.
#[derive(Debug)]
pub(crate) struct LinkedAppend {
    pub game_id: Uuid,
    pub expected_version: u64,
    pub recorded_at: DateTime<Utc>,
    pub events: Vec<RecordedEvent>,
    pub idempotency: Option<IdempotentRequest>,
    /// Set when these events end the game: its row in `game_results`.
    pub result: Option<GameResult>,
}

/// Links `events` into the chain after `head`, all recorded now.
///
/// Each event's payload is encoded once here, in the canonical form the
/// hash covers, and each action once for all the events it made; the hash
/// is taken over those bytes, and they travel with the event
/// ([`RecordedEvent::encoded`]) to the store's statement, the answer and
/// the live streams, which write them as they are.
pub(crate) fn link_events(
    head: &Head,
    events: Vec<NewEvent>,
    idempotency: Option<IdempotentRequest>,
) -> LinkedAppend {
    let game_id_text = head.game_id.to_string();
    // PostgreSQL keeps microseconds; truncating here makes the hashed string
    // identical to what is read back.
    let recorded_at = Utc::now().trunc_subsecs(6);
    let recorded_at_text = format_recorded_at(&recorded_at);
    let mut prev_hash = head.hash.clone();
    let mut linked = Vec::with_capacity(events.len());
    // The events of one action share it: encoded once for them all.
    let mut action_encoded: Option<(Arc<Value>, CanonicalJson)> = None;
    for (offset, event) in events.into_iter().enumerate() {
        let action_json = match &action_encoded {
            Some((action, json)) if Arc::ptr_eq(action, &event.action) => json.clone(),
            _ => {
                let json = CanonicalJson::encode(&event.action);
                action_encoded = Some((Arc::clone(&event.action), json.clone()));
                json
            }
        };
        let payload_json = CanonicalJson::encode(&event.payload);
        let mut record = RecordedEvent {
            seq: head.version + offset as u64 + 1,
            event_type: event.event_type,
            payload: event.payload,
            actor: event.actor,
            action: event.action,
            decided_at: head.version,
            rules_version: event.rules_version,
            recorded_at: recorded_at_text.clone(),
            prev_hash,
            hash: String::new(),
            encoded: Encoded::default(),
        };
        record.hash = record
            .chain_link(&game_id_text)
            .hash_encoded(&payload_json, &action_json);
        record.encoded = Encoded {
            payload: Some(payload_json),
            action: Some(action_json),
        };
        prev_hash = record.hash.clone();
        linked.push(record);
    }
    LinkedAppend {
        game_id: head.game_id,
        expected_version: head.version,
        recorded_at,
        events: linked,
        idempotency,
        result: None,
    }
}

//! The recorded event: one definition of what the event store keeps, what an
//! archive carries and what the hash chain covers, with the one verifier of
//! that chain and the one form of the hashed time (the one codec of actor
//! labels is [`crate::actor_label`]). These are the tamper-evidence
//! invariant: storage, archives and the service all use them, so none can
//! drift from another.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::chain::{CanonicalJson, ChainLink, GENESIS_HASH};

/// One event as recorded in a game's log, with its place in the hash chain.
/// Field for field what the event store keeps and an archive carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RecordedEvent {
    pub seq: u64,
    pub event_type: String,
    #[schema(schema_with = crate::schema_names::any_event)]
    pub payload: Value,
    /// Who caused it: an actor label as text (`system`, `umpire`,
    /// `seat:<name>`), kept as recorded because the hash covers the text.
    // Written and read by `crate::actor_label` (named here, not in the doc
    // comment: that is the OpenAPI document's text, which names no Rust
    // items).
    pub actor: String,
    /// The action that caused the event; `null` for setup events. Shared,
    /// not copied, by the events one action makes.
    #[serde(default)]
    #[schema(schema_with = crate::schema_names::action_as_sent)]
    pub action: Arc<Value>,
    /// The version the causing action was decided against; shared by every
    /// event of one action (0 for setup events).
    pub decided_at: u64,
    pub rules_version: u32,
    /// When it was recorded, in the hashed form ([`format_recorded_at`]).
    pub recorded_at: String,
    pub prev_hash: String,
    pub hash: String,
    /// The payload and action as the append encoded them for the hash (see
    /// [`Encoded`]); empty for an event read back or imported.
    #[serde(skip)]
    pub encoded: Encoded,
}

/// The canonical JSON of an appended event's payload and action
/// ([`CanonicalJson`]), made once by the store's append for the hash and
/// kept with the event, so that the store, the answer and the live streams
/// are handed the same bytes rather than encoding the event again. Set only
/// where the event is linked into the chain, from the payload and action it
/// carries, and never changed after; an event read back from the store or
/// an archive has none (it is encoded from its values where needed, and
/// the chain is always verified from the values). It is a cache, not part
/// of the record: it never makes two events unequal.
#[derive(Debug, Clone, Default)]
pub struct Encoded {
    pub payload: Option<CanonicalJson>,
    pub action: Option<CanonicalJson>,
}

impl PartialEq for Encoded {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl RecordedEvent {
    /// The fields the hash covers, for recomputing it.
    pub fn chain_link<'a>(&'a self, game_id: &'a str) -> ChainLink<'a> {
        ChainLink {
            game_id,
            seq: self.seq,
            event_type: &self.event_type,
            payload: &self.payload,
            actor: &self.actor,
            action: self.action.as_ref(),
            decided_at: self.decided_at,
            rules_version: self.rules_version,
            recorded_at: &self.recorded_at,
            prev_hash: &self.prev_hash,
        }
    }
}

/// A refused action, kept beside the log for the audit (never in it): as
/// the store keeps it and an archive carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RecordedRejection {
    /// The version the game was at when the action was refused.
    pub at_version: u64,
    pub actor: String,
    /// As sent (`null` on the row counting refusals not kept); it may not
    /// be a well-formed action at all.
    pub action: Value,
    pub code: String,
    pub message: String,
    #[serde(default)]
    pub rule: Option<String>,
    pub rules_version: u32,
    pub recorded_at: String,
    /// How many times this refusal was made (identical refusals are counted
    /// on one entry, not repeated). Archives written before the count existed
    /// have none: each entry was then one refusal.
    #[serde(default = "one_refusal")]
    #[schema(default = 1)]
    pub repeats: u64,
}

fn one_refusal() -> u64 {
    1
}

/// How a log's hash chain fails to hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainFault {
    /// An event stands where another sequence number should be.
    SequenceGap,
    /// `prev_hash` is not the previous event's hash.
    BrokenLink,
    /// The hash does not match the event's contents.
    HashMismatch,
}

/// The first place a log's hash chain does not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event {seq}: {reason}")]
pub struct ChainBreak {
    /// The sequence number where the chain breaks.
    pub seq: u64,
    /// The version the event there was decided against.
    pub decided_at: u64,
    pub fault: ChainFault,
    /// A sentence naming what does not match.
    pub reason: String,
}

/// Verifies a log's hash chain from its first event: sequence numbers
/// 1, 2, … without gaps, each `prev_hash` the previous event's hash (the
/// genesis hash first), and each hash recomputed from the event's contents.
pub fn verify_chain(game_id: &str, events: &[RecordedEvent]) -> Result<(), ChainBreak> {
    let mut expected_prev = GENESIS_HASH;
    for (index, event) in events.iter().enumerate() {
        let expected_seq = index as u64 + 1;
        let broken = |fault, reason| ChainBreak {
            seq: if fault == ChainFault::SequenceGap {
                expected_seq
            } else {
                event.seq
            },
            decided_at: event.decided_at,
            fault,
            reason,
        };
        if event.seq != expected_seq {
            return Err(broken(
                ChainFault::SequenceGap,
                format!(
                    "event {} stands where event {expected_seq} should be",
                    event.seq
                ),
            ));
        }
        if event.prev_hash != expected_prev {
            return Err(broken(
                ChainFault::BrokenLink,
                format!(
                    "prev_hash {} is not the hash of event {} ({})",
                    short(&event.prev_hash),
                    event.seq - 1,
                    short(expected_prev)
                ),
            ));
        }
        let recomputed = event.chain_link(game_id).hash();
        if recomputed != event.hash {
            return Err(broken(
                ChainFault::HashMismatch,
                format!(
                    "the hash {} does not match the event's contents ({}): the event was changed after it was recorded",
                    short(&event.hash),
                    short(&recomputed)
                ),
            ));
        }
        expected_prev = &event.hash;
    }
    Ok(())
}

/// The first characters of a hash, enough to tell two apart in a message.
fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

/// Formats a time as the log records and hashes it: UTC, exactly six
/// fractional digits, `Z` (what PostgreSQL's microsecond `timestamptz`
/// holds, so reading a time back gives the hashed string again).
pub fn format_recorded_at(time: &chrono::DateTime<chrono::Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// True when `text` is exactly how the log writes this instant, so that
/// storing and reading it back keeps the hashed string unchanged.
pub fn is_canonical_recorded_at(text: &str) -> bool {
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|time| format_recorded_at(&time.with_timezone(&chrono::Utc)) == text)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chain(n: u64) -> Vec<RecordedEvent> {
        let mut events: Vec<RecordedEvent> = Vec::new();
        for seq in 1..=n {
            let mut event = RecordedEvent {
                seq,
                event_type: "noted".into(),
                payload: json!({"type": "noted", "n": seq}),
                actor: crate::actor_label::SYSTEM.into(),
                action: Value::Null.into(),
                decided_at: 0,
                rules_version: 1,
                recorded_at: "2026-01-01T00:00:00.000000Z".into(),
                prev_hash: events
                    .last()
                    .map_or(GENESIS_HASH.to_string(), |e| e.hash.clone()),
                hash: String::new(),
                encoded: Encoded::default(),
            };
            event.hash = event.chain_link("g").hash();
            events.push(event);
        }
        events
    }

    #[test]
    fn a_whole_chain_holds_and_each_kind_of_break_is_named() {
        let events = chain(4);
        assert_eq!(verify_chain("g", &events), Ok(()));
        assert_eq!(
            verify_chain("other game", &events).unwrap_err().fault,
            ChainFault::HashMismatch
        );

        let mut gap = events.clone();
        gap.remove(1);
        let broken = verify_chain("g", &gap).unwrap_err();
        assert_eq!((broken.seq, broken.fault), (2, ChainFault::SequenceGap));

        let mut relinked = events.clone();
        relinked[2].prev_hash = events[0].hash.clone();
        let broken = verify_chain("g", &relinked).unwrap_err();
        assert_eq!((broken.seq, broken.fault), (3, ChainFault::BrokenLink));

        let mut changed = events;
        changed[3].payload = json!({"type": "noted", "n": 99});
        let broken = verify_chain("g", &changed).unwrap_err();
        assert_eq!((broken.seq, broken.fault), (4, ChainFault::HashMismatch));
    }

    #[test]
    fn recorded_times_have_one_form() {
        let time = chrono::DateTime::parse_from_rfc3339("2026-03-04T05:06:07.5+02:00")
            .unwrap()
            .with_timezone(&chrono::Utc);
        assert_eq!(format_recorded_at(&time), "2026-03-04T03:06:07.500000Z");
        assert!(is_canonical_recorded_at("2026-03-04T03:06:07.500000Z"));
        assert!(!is_canonical_recorded_at("2026-03-04T03:06:07.5Z"));
        assert!(!is_canonical_recorded_at(
            "2026-03-04T05:06:07.500000+02:00"
        ));
    }
}

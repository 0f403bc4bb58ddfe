//! The hash chain that makes a stored event log tamper-evident.
//!
//! Each event's hash is SHA-256 over the RFC 8785 (JCS) canonical JSON of the
//! fields below, including the previous event's hash, so changing, removing or
//! reordering any event breaks every hash after it.

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The `prev_hash` of a stream's first event.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Everything about a stored event that its hash covers.
#[derive(Debug, Clone, Serialize)]
pub struct ChainLink<'a> {
    pub game_id: &'a str,
    pub seq: u64,
    pub event_type: &'a str,
    pub payload: &'a Value,
    /// `umpire`, `system` or `seat:<name>`.
    pub actor: &'a str,
    /// The action that caused the event (`null` for setup events).
    pub action: &'a Value,
    /// The version the action was decided against (0 for setup events).
    pub decided_at: u64,
    pub rules_version: u32,
    /// RFC 3339 with microseconds, UTC, as stored.
    pub recorded_at: &'a str,
    pub prev_hash: &'a str,
}

impl ChainLink<'_> {
    /// The lowercase hex SHA-256 of the canonical encoding.
    pub fn hash(&self) -> String {
        // JCS cannot fail on values built from serde_json::Value and plain
        // strings and integers.
        let canonical = serde_jcs::to_vec(self).expect("canonical JSON of a chain link");
        hex::encode(Sha256::digest(&canonical))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn link<'a>(payload: &'a Value, prev: &'a str) -> ChainLink<'a> {
        ChainLink {
            game_id: "g",
            seq: 1,
            event_type: "card_planted",
            payload,
            actor: "seat:red",
            action: &Value::Null,
            decided_at: 0,
            rules_version: 1,
            recorded_at: "2026-01-01T00:00:00.000000Z",
            prev_hash: prev,
        }
    }

    #[test]
    fn key_order_does_not_change_the_hash() {
        let a = json!({"card": "Q7", "cell": "D5"});
        let b: Value = serde_json::from_str(r#"{"cell":"D5","card":"Q7"}"#).unwrap();
        assert_eq!(link(&a, GENESIS_HASH).hash(), link(&b, GENESIS_HASH).hash());
    }

    #[test]
    fn any_change_changes_the_hash() {
        let a = json!({"card": "Q7", "cell": "D5"});
        let b = json!({"card": "Q7", "cell": "D6"});
        assert_ne!(link(&a, GENESIS_HASH).hash(), link(&b, GENESIS_HASH).hash());
        let other_prev = "1".repeat(64);
        assert_ne!(link(&a, GENESIS_HASH).hash(), link(&a, &other_prev).hash());
        assert_eq!(link(&a, GENESIS_HASH).hash().len(), 64);
    }
}

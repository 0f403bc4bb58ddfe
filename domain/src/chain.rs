//! The hash chain that makes a stored event log tamper-evident.
//!
//! Each event's hash is SHA-256 over the RFC 8785 (JCS) canonical JSON of the
//! fields below, including the previous event's hash, so changing, removing or
//! reordering any event breaks every hash after it.

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;
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
        sha256_hex(&self.canonical_json())
    }

    /// The RFC 8785 (JCS) encoding of the link.
    ///
    /// Every appended event is hashed on the request path, and `serde_jcs`
    /// (which buffers every value and converts every key to UTF-16) costs
    /// about ten times plain serialisation. For the values events actually
    /// hold — integers within ±2^53 and keys below U+E000 — JCS is exactly
    /// serde_json's compact output with object keys in byte order: serde_json
    /// escapes strings as JCS does, writes such integers as ECMAScript does,
    /// and byte order is UTF-16 order below U+E000. Anything else (floats,
    /// larger integers, other keys) goes through `serde_jcs`. A property test
    /// holds the two to the same bytes.
    pub fn canonical_json(&self) -> Vec<u8> {
        let fast = [self.seq, self.decided_at]
            .iter()
            .all(|n| *n <= SAFE_INTEGER);
        let encoded = if fast {
            serde_json::to_vec(&SortedLink {
                action: Sorted(self.action),
                actor: self.actor,
                decided_at: self.decided_at,
                event_type: self.event_type,
                game_id: self.game_id,
                payload: Sorted(self.payload),
                prev_hash: self.prev_hash,
                recorded_at: self.recorded_at,
                rules_version: self.rules_version,
                seq: self.seq,
            })
        } else {
            Err(serde::ser::Error::custom("a number JCS writes otherwise"))
        };
        // JCS cannot fail on serde_json values, strings and integers.
        encoded.unwrap_or_else(|_| serde_jcs::to_vec(self).expect("canonical JSON of a chain link"))
    }

    /// [`ChainLink::hash`], given the payload and the action already in
    /// canonical form ([`CanonicalJson::encode`] of `self.payload` and
    /// `self.action`): the same bytes are hashed, with the encoded values
    /// written into the link as they are instead of encoded again. JCS
    /// composes (an object's canonical form is its members' canonical
    /// forms, keys sorted; the link's keys are ASCII), so the result is
    /// byte for byte [`ChainLink::canonical_json`]'s; a property test holds
    /// the two equal. The append encodes each event once and hands those
    /// bytes to the hash, the store and the answer.
    pub fn hash_encoded(&self, payload: &CanonicalJson, action: &CanonicalJson) -> String {
        if [self.seq, self.decided_at]
            .iter()
            .any(|n| *n > SAFE_INTEGER)
        {
            // JCS writes such integers as doubles: only serde_jcs knows how.
            return self.hash();
        }
        sha256_hex(&self.encoded_json(payload, action))
    }

    /// The canonical encoding of the link around already encoded values
    /// (see [`ChainLink::hash_encoded`]).
    ///
    /// Written by hand, in JCS's key order: serde's derived form cost a
    /// tenth of an action's instructions (ten map entries per event).
    fn encoded_json(&self, payload: &CanonicalJson, action: &CanonicalJson) -> Vec<u8> {
        let mut out = Vec::with_capacity(payload.0.get().len() + action.0.get().len() + 320);
        let mut number = itoa::Buffer::new();
        out.extend_from_slice(b"{\"action\":");
        out.extend_from_slice(action.as_str().as_bytes());
        out.extend_from_slice(b",\"actor\":");
        json_string(&mut out, self.actor);
        out.extend_from_slice(b",\"decided_at\":");
        out.extend_from_slice(number.format(self.decided_at).as_bytes());
        out.extend_from_slice(b",\"event_type\":");
        json_string(&mut out, self.event_type);
        out.extend_from_slice(b",\"game_id\":");
        json_string(&mut out, self.game_id);
        out.extend_from_slice(b",\"payload\":");
        out.extend_from_slice(payload.as_str().as_bytes());
        out.extend_from_slice(b",\"prev_hash\":");
        json_string(&mut out, self.prev_hash);
        out.extend_from_slice(b",\"recorded_at\":");
        json_string(&mut out, self.recorded_at);
        out.extend_from_slice(b",\"rules_version\":");
        out.extend_from_slice(number.format(self.rules_version).as_bytes());
        out.extend_from_slice(b",\"seq\":");
        out.extend_from_slice(number.format(self.seq).as_bytes());
        out.push(b'}');
        out
    }
}

/// `text` as a JSON string, escaped as serde_json escapes it, which is as
/// JCS does: as it is when nothing in it needs an escape.
fn json_string(out: &mut Vec<u8>, text: &str) {
    if !needs_escaping(text.as_bytes()) {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        serde_json::to_writer(&mut *out, text).expect("a string is JSON");
    }
}

/// Whether serde_json escapes anything in `bytes`: a control character, a
/// quote or a backslash. Eight bytes at a time (a byte-wise test cost
/// about five instructions a byte).
pub fn needs_escaping(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::MAX / 255;
    const HIGHS: u64 = ONES * 0x80;
    // Whether a byte of `word` is below `n` (n <= 128).
    let below = |word: u64, n: u64| word.wrapping_sub(ONES * n) & !word & HIGHS != 0;
    let zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS != 0;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        if below(word, 0x20)
            || zero(word ^ (ONES * u64::from(b'"')))
            || zero(word ^ (ONES * u64::from(b'\\')))
        {
            return true;
        }
    }
    chunks
        .remainder()
        .iter()
        .any(|&byte| byte < 0x20 || byte == b'"' || byte == b'\\')
}

/// A JSON value in its RFC 8785 (JCS) canonical encoding, made once and
/// shared (cloning it copies a pointer): an appended event's payload and
/// action as the hash chain covers them, handed as the same bytes to the
/// store and written as they are into the answer and the live streams.
/// It serialises as the JSON it holds, unchanged.
#[derive(Clone)]
pub struct CanonicalJson(Arc<RawValue>);

impl CanonicalJson {
    /// The canonical encoding of `value` ([`canonical`]).
    pub fn encode(value: &Value) -> CanonicalJson {
        // Written by serde_json itself where it writes JCS: valid JSON, not
        // parsed again.
        let raw = serde_json::value::to_raw_value(&Sorted(value)).unwrap_or_else(|_| {
            let text = String::from_utf8(serde_jcs::to_vec(value).expect("canonical JSON"))
                .expect("JSON is UTF-8");
            RawValue::from_string(text).expect("JCS writes JSON")
        });
        CanonicalJson(Arc::from(raw))
    }

    /// The encoded JSON.
    pub fn as_str(&self) -> &str {
        self.0.get()
    }

    /// Whether it encodes `null`.
    pub fn is_null(&self) -> bool {
        self.as_str() == "null"
    }
}

impl Serialize for CanonicalJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl std::fmt::Debug for CanonicalJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for CanonicalJson {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

/// The lowercase hex SHA-256 of `bytes`, as hashes are stored and compared.
///
/// Written into a fixed buffer: `hex::encode` collects its output a `char`
/// at a time, which cost more than the digest itself on the action path
/// (every appended event is hashed, and every request's token).
pub fn sha256_hex(bytes: &[u8]) -> String {
    let mut text = [0u8; 64];
    hex::encode_to_slice(Sha256::digest(bytes), &mut text)
        .expect("a SHA-256 digest is 32 bytes, 64 hex digits");
    String::from_utf8(text.to_vec()).expect("hex digits are ASCII")
}

/// The RFC 8785 (JCS) encoding of any JSON value: two values that mean the
/// same (keys in another order, other whitespace) encode to the same bytes.
pub fn canonical(value: &Value) -> Vec<u8> {
    serde_json::to_vec(&Sorted(value))
        .unwrap_or_else(|_| serde_jcs::to_vec(value).expect("canonical JSON of a JSON value"))
}

/// The largest integer every JSON reader holds exactly (2^53).
const SAFE_INTEGER: u64 = 1 << 53;

/// True when serde_json with sorted keys writes `value` as JCS does.
#[cfg(test)]
fn plain(value: &Value) -> bool {
    serde_json::to_vec(&Sorted(value)).is_ok()
}

/// A JSON value written with every object's keys in byte order: JCS, for
/// the values events hold, integers within ±2^53 and keys below U+E000
/// (serde_json escapes strings as JCS does, writes such integers as
/// ECMAScript does, and byte order is UTF-16 order below U+E000). Anything
/// else is an error, found as it is written (not by a walk of its own
/// first), and the caller writes the value through `serde_jcs` instead.
struct Sorted<'a>(&'a Value);

/// Whether `key` sorts in byte order as in UTF-16 order: no character from
/// U+E000 on, whose UTF-8 lead bytes are 0xEE and above (no other byte of
/// a UTF-8 text is).
fn byte_ordered(key: &str) -> bool {
    key.bytes().all(|byte| byte < 0xee)
}

/// Whether JCS writes `number` as serde_json does: an integer within ±2^53.
fn safe_integer(number: &serde_json::Number) -> bool {
    number.as_u64().is_some_and(|n| n <= SAFE_INTEGER)
        || number
            .as_i64()
            .is_some_and(|n| n.unsigned_abs() <= SAFE_INTEGER)
}

impl Serialize for Sorted<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self.0 {
            Value::Object(map) => {
                if !map.keys().all(|key| byte_ordered(key)) {
                    return Err(serde::ser::Error::custom("a key JCS orders otherwise"));
                }
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                let mut out = serializer.serialize_map(Some(entries.len()))?;
                for (key, item) in entries {
                    out.serialize_entry(key, &Sorted(item))?;
                }
                out.end()
            }
            Value::Array(items) => serializer.collect_seq(items.iter().map(Sorted)),
            Value::Number(number) if !safe_integer(number) => {
                Err(serde::ser::Error::custom("a number JCS writes otherwise"))
            }
            other => other.serialize(serializer),
        }
    }
}

/// [`ChainLink`]'s fields in JCS order (sorted by name): keep them sorted.
#[derive(Serialize)]
struct SortedLink<'a> {
    action: Sorted<'a>,
    actor: &'a str,
    decided_at: u64,
    event_type: &'a str,
    game_id: &'a str,
    payload: Sorted<'a>,
    prev_hash: &'a str,
    recorded_at: &'a str,
    rules_version: u32,
    seq: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn strings_needing_escapes_are_found_at_every_position() {
        for length in 0..20 {
            for at in 0..length {
                for byte in (0u8..=127).chain([0xc3]) {
                    let mut text = vec![b'a'; length];
                    text[at] = byte;
                    let expected = byte < 0x20 || byte == b'"' || byte == b'\\';
                    assert_eq!(
                        needs_escaping(&text),
                        expected,
                        "{byte:#x} at {at} of {length}"
                    );
                }
            }
        }
    }

    #[test]
    fn sha256_hex_is_the_lowercase_hex_digest() {
        // FIPS 180-2's example, and the digest of nothing.
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(sha256_hex(b"abc"), hex::encode(Sha256::digest(b"abc")));
    }

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

    fn any_json() -> impl Strategy<Value = Value> {
        let key = prop_oneof![
            "[a-z_]{0,6}",
            any::<String>(),
            Just("\u{e000}".to_string()),
            Just("\u{10000}".to_string()),
            Just("\u{7f}\u{1f}\"\\".to_string()),
        ];
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-(1i64 << 53)..=(1i64 << 53)).prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((key.clone(), inner), 0..6)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn the_fast_encoding_is_byte_for_byte_jcs(
            payload in any_json(),
            action in any_json(),
            seq in prop_oneof![0u64..1000, any::<u64>()],
            actor in any::<String>(),
        ) {
            let mut link = link(&payload, GENESIS_HASH);
            link.action = &action;
            link.seq = seq;
            link.actor = &actor;
            prop_assert_eq!(
                String::from_utf8(link.canonical_json()).unwrap(),
                String::from_utf8(serde_jcs::to_vec(&link).unwrap()).unwrap()
            );
        }

        #[test]
        fn a_link_around_values_encoded_once_is_byte_for_byte_jcs(
            payload in any_json(),
            action in any_json(),
            seq in prop_oneof![0u64..1000, any::<u64>()],
            decided_at in prop_oneof![0u64..1000, any::<u64>()],
            actor in any::<String>(),
        ) {
            let mut link = link(&payload, GENESIS_HASH);
            link.action = &action;
            link.seq = seq;
            link.decided_at = decided_at;
            link.actor = &actor;
            let (payload, action) = (CanonicalJson::encode(&payload), CanonicalJson::encode(&action));
            let expected = canonical(link.payload);
            prop_assert_eq!(payload.as_str().as_bytes(), expected.as_slice());
            prop_assert_eq!(link.hash_encoded(&payload, &action), link.hash());
            if seq <= SAFE_INTEGER && decided_at <= SAFE_INTEGER {
                prop_assert_eq!(
                    String::from_utf8(link.encoded_json(&payload, &action)).unwrap(),
                    String::from_utf8(serde_jcs::to_vec(&link).unwrap()).unwrap()
                );
            }
        }
    }

    #[test]
    fn typical_events_take_the_fast_path() {
        let payload =
            json!({"type": "card_planted", "card": "Q7", "cell": "D5", "points": [1, -2]});
        assert!(plain(&payload));
        assert!(!plain(&json!({"ratio": 0.5})));
        assert!(!plain(&json!({"seed": u64::MAX})));
        assert!(!plain(&json!({"\u{10000}": 1})));
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

//! How a viewer is shown a stored event: whole, redacted, or as the hidden
//! placeholder, with the action, hash links and actor it may see. Shared by
//! `/events` (`reads.rs`), the answer to an action (`submit.rs`) and the live
//! streams (`live/`), and free of the service itself, so that each of them
//! can use it without depending on the others.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use umpire_domain::chain::CanonicalJson;
use umpire_domain::erased::{
    event_type, hidden_event, DecodedEvent, Shown, ShownText, HIDDEN_EVENT_TYPE,
};
#[cfg(test)]
use umpire_domain::StatusJson;
use umpire_domain::{actor_label, DynMatch, RecordedEvent, Viewer};

use super::json_text::json_string;
use crate::error::ServiceError;
use crate::model::{AnswerJson, EventEnvelope};

/// An event as `viewer` may see it, judged against the latest state
/// `now`. An event it may not see is a placeholder in its place (`{"type":
/// "hidden"}`), so that every viewer's sequence is gap-free: its number and
/// time, and that the system (setup) recorded it, are public; who acted is
/// not, since a secret move can be a seat's own.
pub(crate) fn envelope(
    now: &dyn DynMatch,
    event: &RecordedEvent,
    decoded: &DecodedEvent,
    viewer: &Viewer<String>,
) -> Result<EventEnvelope, ServiceError> {
    let shown = now.show_event_text(&event.payload, decoded, viewer)?;
    Ok(shown_event_text(event, &shown, viewer).into_envelope())
}

/// `event` as `viewer` is shown it, borrowed from the stored event. A
/// hidden event's placeholder is the same for every viewer it is hidden
/// from.
pub(crate) fn shown_event<'a>(
    event: &'a RecordedEvent,
    shown: Shown,
    viewer: &Viewer<String>,
) -> ShownEvent<'a> {
    let umpire = viewer.is_umpire();
    let (payload, payload_json) = match shown {
        Shown::Whole => (
            Cow::Borrowed(&event.payload),
            event.encoded.payload.as_ref(),
        ),
        Shown::Redacted(redacted) => (Cow::Owned(redacted), None),
        Shown::Hidden => {
            return ShownEvent {
                seq: event.seq,
                actor: if event.actor == actor_label::SYSTEM {
                    actor_label::SYSTEM
                } else {
                    HIDDEN_EVENT_TYPE
                },
                recorded_at: &event.recorded_at,
                rules_version: event.rules_version,
                payload: Cow::Owned(Value::Null),
                payload_json: None,
                payload_text: Some((hidden_payload(), HIDDEN_EVENT_TYPE)),
                action: None,
                action_json: None,
                prev_hash: None,
                hash: None,
            }
        }
    };
    let own_action = umpire || acted(viewer, event);
    let action = (own_action && !event.action.is_null()).then_some(&event.action);
    ShownEvent {
        seq: event.seq,
        actor: &event.actor,
        recorded_at: &event.recorded_at,
        rules_version: event.rules_version,
        payload,
        payload_json,
        payload_text: None,
        action,
        action_json: action.and(event.encoded.action.as_ref()),
        prev_hash: umpire.then_some(event.prev_hash.as_str()),
        hash: umpire.then_some(event.hash.as_str()),
    }
}

/// `event` as `viewer` is shown it, as [`shown_event`] shows it, from a
/// [`ShownText`]: a redacted payload is its JSON, written as it is.
pub(crate) fn shown_event_text<'a>(
    event: &'a RecordedEvent,
    shown: &'a ShownText,
    viewer: &Viewer<String>,
) -> ShownEvent<'a> {
    match shown {
        ShownText::Whole => shown_event(event, Shown::Whole, viewer),
        ShownText::Hidden => shown_event(event, Shown::Hidden, viewer),
        ShownText::Redacted { json, event_type } => ShownEvent {
            payload: Cow::Owned(Value::Null),
            payload_json: None,
            payload_text: Some((json, event_type)),
            // Who may see the action and the links: as for any redaction.
            ..shown_event(event, Shown::Redacted(Value::Null), viewer)
        },
    }
}

/// The placeholder payload of a hidden event (`{"type": "hidden"}`),
/// written once: every viewer is shown it for every event hidden from
/// them, and building it as a value for each cost an allocation or two.
fn hidden_payload() -> &'static Arc<RawValue> {
    static HIDDEN: std::sync::LazyLock<Arc<RawValue>> = std::sync::LazyLock::new(|| {
        let json = serde_json::to_string(&hidden_event()).expect("the placeholder writes");
        Arc::from(RawValue::from_string(json).expect("the placeholder is JSON"))
    });
    &HIDDEN
}

/// Whether `viewer` is the seat (or the umpire) whose action `event`
/// records: the action is shown to its actor.
pub(crate) fn acted(viewer: &Viewer<String>, event: &RecordedEvent) -> bool {
    viewer
        .actor()
        .is_some_and(|actor| actor_label::names(&event.actor, &actor))
}

/// Several events as `viewer` may see them. `decoded` holds the first of
/// them in their game's type, where the caller has them (the events an
/// action has just made: [`umpire_domain::erased::Decision::decoded`]);
/// the others are decoded from their JSON where a redaction needs it.
pub(crate) fn envelopes<'a>(
    now: &dyn DynMatch,
    events: impl IntoIterator<Item = &'a RecordedEvent>,
    decoded: &[DecodedEvent],
    viewer: &Viewer<String>,
) -> Result<Vec<EventEnvelope>, ServiceError> {
    events
        .into_iter()
        .enumerate()
        .map(|(index, event)| match decoded.get(index) {
            Some(decoded) => envelope(now, event, decoded, viewer),
            None => envelope(now, event, &DecodedEvent::default(), viewer),
        })
        .collect()
}

/// An [`EventEnvelope`] borrowed from the stored event it shows: what a
/// live stream writes, without copying a payload shown whole, and with the
/// canonical JSON the append encoded, where the event carries it, written
/// as it is.
#[derive(Debug, Clone)]
pub(crate) struct ShownEvent<'a> {
    pub seq: u64,
    pub actor: &'a str,
    pub recorded_at: &'a str,
    pub rules_version: u32,
    pub payload: Cow<'a, Value>,
    /// The payload's canonical JSON, for a payload shown whole that the
    /// append encoded.
    pub payload_json: Option<&'a CanonicalJson>,
    /// A redacted payload given as its JSON and its type
    /// ([`shown_event_text`]), in place of `payload`.
    pub payload_text: Option<(&'a Arc<RawValue>, &'a str)>,
    pub action: Option<&'a Arc<Value>>,
    /// The action's canonical JSON, when it is shown and was encoded.
    pub action_json: Option<&'a CanonicalJson>,
    pub prev_hash: Option<&'a str>,
    pub hash: Option<&'a str>,
}

impl ShownEvent<'_> {
    pub fn into_envelope(self) -> EventEnvelope {
        EventEnvelope {
            seq: self.seq,
            event_type: self.event_type().to_string(),
            actor: self.actor.to_string(),
            recorded_at: self.recorded_at.to_string(),
            rules_version: self.rules_version,
            action: match (self.action_json, self.action) {
                (Some(json), Some(_)) => Some(AnswerJson::Encoded(json.clone())),
                (None, Some(action)) => Some(AnswerJson::Shared(Arc::clone(action))),
                (_, None) => None,
            },
            prev_hash: self.prev_hash.map(str::to_string),
            hash: self.hash.map(str::to_string),
            payload: match (self.payload_json, self.payload_text) {
                (Some(json), _) => AnswerJson::Encoded(json.clone()),
                (None, Some((json, _))) => AnswerJson::Text(Arc::clone(json)),
                (None, None) => AnswerJson::Value(self.payload.into_owned()),
            },
        }
    }

    fn event_type(&self) -> &str {
        match self.payload_text {
            Some((_, event_type)) => event_type,
            None => event_type(&self.payload),
        }
    }

    fn payload_ref(&self) -> JsonRef<'_> {
        match (self.payload_json, self.payload_text) {
            (Some(json), _) => JsonRef::Encoded(json),
            (None, Some((json, _))) => JsonRef::Text(json.get()),
            (None, None) => JsonRef::Value(&self.payload),
        }
    }

    fn action_ref(&self) -> Option<JsonRef<'_>> {
        let action = self.action?;
        Some(match self.action_json {
            Some(json) => JsonRef::Encoded(json),
            None => JsonRef::Value(action),
        })
    }

    /// The JSON of the [`StreamEvent`](crate::model::StreamEvent) of this
    /// event in `game` with `status` (the status's JSON): what a live
    /// stream sends, written piece by piece ([`ShownEvent::write_fields`]),
    /// the status once for all of an event's viewers: through serde's
    /// derive it cost several times as much a rendering. The same bytes as [`ShownEvent::streamed`] (a test holds them to it).
    pub fn stream_json(&self, game: &str, status: &str) -> Result<String, serde_json::Error> {
        let mut out = String::with_capacity(32 + status.len() + self.fields_len());
        out.push_str("{\"game\":");
        json_string(&mut out, game)?;
        out.push(',');
        self.write_fields(&mut out)?;
        out.push_str(",\"status\":");
        out.push_str(status);
        out.push('}');
        Ok(out)
    }

    /// About how long [`ShownEvent::write_fields`] writes, to allocate once.
    pub fn fields_len(&self) -> usize {
        160 + self.payload_ref().text_len()
            + self.action_ref().map_or(0, JsonRef::text_len)
            + self.hash.map_or(0, |hash| 2 * hash.len() + 32)
    }

    /// The fields of its [`EventEnvelope`], as serde writes them, without
    /// the braces: the middle of a stream event and an answer's event.
    pub fn write_fields(&self, out: &mut String) -> Result<(), serde_json::Error> {
        out.push_str("\"seq\":");
        out.push_str(itoa::Buffer::new().format(self.seq));
        out.push_str(",\"type\":");
        json_string(out, self.event_type())?;
        out.push_str(",\"actor\":");
        json_string(out, self.actor)?;
        out.push_str(",\"recorded_at\":");
        json_string(out, self.recorded_at)?;
        out.push_str(",\"rules_version\":");
        out.push_str(itoa::Buffer::new().format(self.rules_version));
        out.push_str(",\"payload\":");
        self.payload_ref().write(out)?;
        if let Some(action) = self.action_ref() {
            out.push_str(",\"action\":");
            action.write(out)?;
        }
        if let Some(prev_hash) = self.prev_hash {
            out.push_str(",\"prev_hash\":");
            json_string(out, prev_hash)?;
        }
        if let Some(hash) = self.hash {
            out.push_str(",\"hash\":");
            json_string(out, hash)?;
        }
        Ok(())
    }

    /// The [`StreamEvent`](crate::model::StreamEvent) of this event in
    /// `game`, through serde: what [`ShownEvent::stream_json`] must write.
    #[cfg(test)]
    pub fn streamed<'a>(&'a self, game: &'a str, status: &'a StatusJson) -> impl Serialize + 'a {
        StreamEventFields {
            game,
            seq: self.seq,
            event_type: self.event_type(),
            actor: self.actor,
            recorded_at: self.recorded_at,
            rules_version: self.rules_version,
            payload: self.payload_ref(),
            action: self.action_ref(),
            prev_hash: self.prev_hash,
            hash: self.hash,
            status,
        }
    }
}

/// A [`StreamEvent`](crate::model::StreamEvent) as a live stream writes it: `game`, the envelope's
/// fields, then `status`.
#[cfg(test)]
#[derive(Serialize)]
struct StreamEventFields<'a> {
    game: &'a str,
    seq: u64,
    #[serde(rename = "type")]
    event_type: &'a str,
    actor: &'a str,
    recorded_at: &'a str,
    rules_version: u32,
    payload: JsonRef<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    action: Option<JsonRef<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prev_hash: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hash: Option<&'a str>,
    status: &'a StatusJson,
}

/// A payload or action to write, borrowed: see [`AnswerJson`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum JsonRef<'a> {
    Encoded(&'a CanonicalJson),
    Value(&'a Value),
    /// JSON that serde_json wrote ([`ShownText`]).
    Text(&'a str),
}

impl JsonRef<'_> {
    /// The length of its JSON when it is written already, else 0.
    fn text_len(self) -> usize {
        match self {
            JsonRef::Encoded(json) => json.as_str().len(),
            JsonRef::Text(json) => json.len(),
            JsonRef::Value(_) => 0,
        }
    }

    fn write(self, out: &mut String) -> Result<(), serde_json::Error> {
        match self {
            JsonRef::Encoded(json) => out.push_str(json.as_str()),
            JsonRef::Text(json) => out.push_str(json),
            JsonRef::Value(value) => out.push_str(&serde_json::to_string(value)?),
        }
        Ok(())
    }
}

impl Serialize for JsonRef<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            JsonRef::Encoded(json) => json.serialize(serializer),
            JsonRef::Value(value) => value.serialize(serializer),
            JsonRef::Text(json) => serde_json::from_str::<Value>(json)
                .map_err(serde::ser::Error::custom)?
                .serialize(serializer),
        }
    }
}

/// Events as viewers are shown them, one of each kind, handed to `check`:
/// the umpire's (with the action and the links), as the append encoded it,
/// hidden, with strings to escape, and redacted (as its JSON).
#[cfg(test)]
pub(crate) fn sample_shown_events(check: impl FnOnce(&[ShownEvent<'_>])) {
    use serde_json::json;
    let action = Arc::new(json!({"type": "grow", "cells": ["a1", "b2"]}));
    let payload = json!({"type": "cube_placed", "cell": "a1", "note": "quote \" here"});
    let umpires = ShownEvent {
        seq: 12,
        actor: "seat:dark",
        recorded_at: "2026-11-25T03:06:07.500000Z",
        rules_version: 2,
        payload: Cow::Borrowed(&payload),
        payload_json: None,
        payload_text: None,
        action: Some(&action),
        action_json: None,
        prev_hash: Some("ef"),
        hash: Some("01"),
    };
    let (payload_json, action_json) = (
        CanonicalJson::encode(&payload),
        CanonicalJson::encode(&action),
    );
    let encoded = ShownEvent {
        payload: Cow::Borrowed(&payload),
        payload_json: Some(&payload_json),
        action: Some(&action),
        action_json: Some(&action_json),
        ..umpires.clone()
    };
    let hidden = ShownEvent {
        payload: Cow::Owned(json!({"type": "hidden"})),
        payload_json: None,
        action: None,
        action_json: None,
        prev_hash: None,
        hash: None,
        actor: "hidden",
        ..umpires.clone()
    };
    let escaped = ShownEvent {
        actor: "seat:\"dark\"\\\n",
        payload: Cow::Owned(json!({"type": "hidden"})),
        payload_json: None,
        action: None,
        action_json: None,
        ..umpires.clone()
    };
    let redacted_json: Arc<RawValue> =
        Arc::from(serde_json::value::to_raw_value(&payload).unwrap());
    let redacted = ShownEvent {
        payload: Cow::Owned(Value::Null),
        payload_json: None,
        payload_text: Some((&redacted_json, "cube_placed")),
        ..umpires.clone()
    };
    check(&[umpires, encoded, hidden, escaped, redacted]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::StreamEvent;

    /// Given an event as a viewer is shown it, borrowed from the stored
    /// event, a live stream writes exactly the stream event of its envelope.
    #[test]
    fn a_shown_event_is_streamed_as_the_stream_event_of_its_envelope() {
        let status = StatusJson {
            phase: "growth".into(),
            finished: true,
            to_act: vec![],
            clock: None,
        };
        let status_json = serde_json::to_string(&status).unwrap();
        sample_shown_events(|samples| {
            for shown in samples.iter().cloned() {
                let streamed = serde_json::to_string(&shown.streamed("treeblox", &status)).unwrap();
                let written = shown.stream_json("treeblox", &status_json).unwrap();
                assert_eq!(written, streamed);
                let event = StreamEvent {
                    game: "treeblox".into(),
                    event: shown.into_envelope(),
                    status: status.clone(),
                };
                assert_eq!(streamed, serde_json::to_string(&event).unwrap());
                assert!(streamed.contains(&format!("\"type\":\"{}\"", event.event.event_type)));
            }
        });
    }
}

//! How a viewer is shown a stored event: whole, redacted, or as the hidden
//! placeholder, with the action, hash links and actor it may see. Shared by
//! `/events` (`reads.rs`), the answer to an action (`submit.rs`) and the live
//! streams (`live/`), and free of the service itself, so that each of them
//! can use it without depending on the others.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use umpire_domain::chain::CanonicalJson;
use umpire_domain::erased::{
    event_type, hidden_event, DecodedEvent, Shown, StatusJson, HIDDEN_EVENT_TYPE,
};
use umpire_domain::{actor_label, DynMatch, RecordedEvent, Viewer};

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
    viewer: &Viewer<String>,
) -> Result<EventEnvelope, ServiceError> {
    let shown = now.show_event(&event.payload, &DecodedEvent::default(), viewer)?;
    Ok(shown_event(event, shown, viewer).into_envelope())
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
                payload: Cow::Owned(hidden_event()),
                payload_json: None,
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
        action,
        action_json: action.and(event.encoded.action.as_ref()),
        prev_hash: umpire.then_some(event.prev_hash.as_str()),
        hash: umpire.then_some(event.hash.as_str()),
    }
}

/// Whether `viewer` is the seat (or the umpire) whose action `event`
/// records: the action is shown to its actor.
pub(crate) fn acted(viewer: &Viewer<String>, event: &RecordedEvent) -> bool {
    viewer
        .actor()
        .is_some_and(|actor| actor_label::names(&event.actor, &actor))
}

/// Several events as `viewer` may see them.
pub(crate) fn envelopes<'a>(
    now: &dyn DynMatch,
    events: impl IntoIterator<Item = &'a RecordedEvent>,
    viewer: &Viewer<String>,
) -> Result<Vec<EventEnvelope>, ServiceError> {
    events
        .into_iter()
        .map(|event| envelope(now, event, viewer))
        .collect()
}

/// An [`EventEnvelope`] borrowed from the stored event it shows: what a
/// live stream writes, without copying a payload shown whole, and with the
/// canonical JSON the append encoded, where the event carries it, written
/// as it is.
#[derive(Debug)]
pub(crate) struct ShownEvent<'a> {
    pub seq: u64,
    pub actor: &'a str,
    pub recorded_at: &'a str,
    pub rules_version: u32,
    pub payload: Cow<'a, Value>,
    /// The payload's canonical JSON, for a payload shown whole that the
    /// append encoded.
    pub payload_json: Option<&'a CanonicalJson>,
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
            event_type: event_type(&self.payload).to_string(),
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
            payload: match self.payload_json {
                Some(json) => AnswerJson::Encoded(json.clone()),
                None => AnswerJson::Value(self.payload.into_owned()),
            },
        }
    }

    fn payload_ref(&self) -> JsonRef<'_> {
        match self.payload_json {
            Some(json) => JsonRef::Encoded(json),
            None => JsonRef::Value(&self.payload),
        }
    }

    fn action_ref(&self) -> Option<JsonRef<'_>> {
        let action = self.action?;
        Some(match self.action_json {
            Some(json) => JsonRef::Encoded(json),
            None => JsonRef::Value(action),
        })
    }

    /// The [`StreamEvent`](crate::model::StreamEvent) of this event in `game`, as it is written.
    pub fn streamed<'a>(&'a self, game: &'a str, status: &'a StatusJson) -> impl Serialize + 'a {
        StreamEventFields {
            game,
            seq: self.seq,
            event_type: event_type(&self.payload),
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
}

impl Serialize for JsonRef<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            JsonRef::Encoded(json) => json.serialize(serializer),
            JsonRef::Value(value) => value.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::StreamEvent;
    use serde_json::json;

    /// Given an event as a viewer is shown it, borrowed from the stored
    /// event, a live stream writes exactly the stream event of its envelope.
    #[test]
    fn a_shown_event_is_streamed_as_the_stream_event_of_its_envelope() {
        let action = Arc::new(json!({"type": "grow", "cells": ["a1", "b2"]}));
        let payload = json!({"type": "cube_placed", "cell": "a1", "note": "quote \" here"});
        let status = StatusJson {
            phase: "growth".into(),
            finished: true,
            to_act: vec![],
            clock: None,
        };
        let umpires = ShownEvent {
            seq: 12,
            actor: "seat:dark",
            recorded_at: "2026-11-25T03:06:07.500000Z",
            rules_version: 2,
            payload: Cow::Borrowed(&payload),
            payload_json: None,
            action: Some(&action),
            action_json: None,
            prev_hash: Some("ef"),
            hash: Some("01"),
        };
        // As the append encoded it: its canonical JSON written as it is.
        let (payload_json, action_json) = (
            CanonicalJson::encode(&payload),
            CanonicalJson::encode(&action),
        );
        let encoded = ShownEvent {
            payload: Cow::Borrowed(&payload),
            payload_json: Some(&payload_json),
            action: Some(&action),
            action_json: Some(&action_json),
            ..umpires
        };
        let hidden = ShownEvent {
            payload: Cow::Owned(json!({"type": "hidden"})),
            payload_json: None,
            action: None,
            action_json: None,
            prev_hash: None,
            hash: None,
            actor: "hidden",
            ..umpires
        };
        for shown in [umpires, encoded, hidden] {
            let streamed = serde_json::to_string(&shown.streamed("treeblox", &status)).unwrap();
            let event = StreamEvent {
                game: "treeblox".into(),
                event: shown.into_envelope(),
                status: status.clone(),
            };
            assert_eq!(streamed, serde_json::to_string(&event).unwrap());
            assert!(streamed.contains(&format!("\"type\":\"{}\"", event.event.event_type)));
        }
    }
}

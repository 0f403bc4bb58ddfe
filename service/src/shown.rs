//! How a viewer is shown a stored event: whole, redacted, or as the hidden
//! placeholder, with the action, hash links and actor it may see. Shared by
//! `/events` (`reads.rs`), the answer to an action (`submit.rs`) and the live
//! streams (`live/`), and free of the service itself, so that each of them
//! can use it without depending on the others.

use std::borrow::Cow;

use umpire_domain::erased::{hidden_event, DecodedEvent, Shown, HIDDEN_EVENT_TYPE};
use umpire_domain::{actor_label, DynMatch, RecordedEvent, Viewer};

use crate::error::ServiceError;
use crate::model::{EventEnvelope, ShownEvent};

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
    let payload = match shown {
        Shown::Whole => Cow::Borrowed(&event.payload),
        Shown::Redacted(redacted) => Cow::Owned(redacted),
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
                action: None,
                prev_hash: None,
                hash: None,
            }
        }
    };
    let own_action = umpire || acted(viewer, event);
    ShownEvent {
        seq: event.seq,
        actor: &event.actor,
        recorded_at: &event.recorded_at,
        rules_version: event.rules_version,
        payload,
        action: (own_action && !event.action.is_null()).then_some(&event.action),
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

//! The JSON of a list of events as a viewer is shown them, written piece
//! by piece: the one writer of events for a page of `/events` and the
//! answer to an action (a live stream writes each event with its status,
//! `ShownEvent::stream_json`, from the same fields).

use umpire_domain::erased::DecodedEvent;
use umpire_domain::{DynMatch, RecordedEvent, Viewer};
use uuid::Uuid;

use super::json_text::json_string;
use super::shown::{shown_event_text, ShownEvent};
use crate::error::ServiceError;
use crate::model::EventPageJson;

pub(super) fn writing(what: &'static str) -> impl Fn(serde_json::Error) -> ServiceError {
    move |error| ServiceError::Internal(format!("writing {what}: {error}"))
}

/// Writes `events` as `viewer` is shown them judged against the state
/// `now`, as a JSON list, into `out`. `decoded` holds the first events in
/// their game's type where the caller has them (an action's); the others
/// are decoded from their JSON where a redaction needs it.
pub(super) fn write_events<'a>(
    out: &mut String,
    now: &dyn DynMatch,
    events: impl IntoIterator<Item = &'a RecordedEvent>,
    decoded: &[DecodedEvent],
    viewer: &Viewer<String>,
    what: &'static str,
) -> Result<(), ServiceError> {
    out.push('[');
    for (index, event) in events.into_iter().enumerate() {
        let fresh;
        let decoded = match decoded.get(index) {
            Some(decoded) => decoded,
            None => {
                fresh = DecodedEvent::default();
                &fresh
            }
        };
        let shown = now.show_event_text(&event.payload, decoded, viewer)?;
        if index > 0 {
            out.push(',');
        }
        write_event(out, &shown_event_text(event, &shown, viewer), what)?;
    }
    out.push(']');
    Ok(())
}

/// One event as an object: its `EventEnvelope`.
pub(super) fn write_event(
    out: &mut String,
    shown: &ShownEvent<'_>,
    what: &'static str,
) -> Result<(), ServiceError> {
    out.reserve(shown.fields_len() + 3);
    out.push('{');
    shown.write_fields(out).map_err(writing(what))?;
    out.push('}');
    Ok(())
}

/// What a page of `/events` is made of.
pub(crate) struct Page<'a, I> {
    pub game_id: Uuid,
    pub game: &'a str,
    pub version: u64,
    pub events: I,
    pub next_after: Option<u64>,
}

/// The JSON of an `EventPage`: `page`'s events as `viewer` is shown them
/// judged against `now`, byte for byte as serde writes the page.
pub(crate) fn page_json<'a>(
    page: Page<'_, impl IntoIterator<Item = &'a RecordedEvent>>,
    now: &dyn DynMatch,
    viewer: &Viewer<String>,
) -> Result<EventPageJson, ServiceError> {
    const WHAT: &str = "a page of events";
    let mut out = String::with_capacity(1024);
    out.push_str("{\"id\":\"");
    out.push_str(
        page.game_id
            .hyphenated()
            .encode_lower(&mut Uuid::encode_buffer()),
    );
    out.push_str("\",\"game\":");
    json_string(&mut out, page.game).map_err(writing(WHAT))?;
    out.push_str(",\"version\":");
    out.push_str(itoa::Buffer::new().format(page.version));
    out.push_str(",\"events\":");
    write_events(&mut out, now, page.events, &[], viewer, WHAT)?;
    if let Some(next_after) = page.next_after {
        out.push_str(",\"next_after\":");
        out.push_str(itoa::Buffer::new().format(next_after));
    }
    out.push('}');
    Ok(EventPageJson(out))
}

//! The projection: what a viewer is shown of a stored event and of a
//! game's status, and the JSON of it, in one home for the three readers
//! of a game's events: a page of `/events` (`reads.rs`), the answer to an
//! action (`submit.rs`) and the live streams (`live/`).
//!
//! - [`shown`]: the entry. An event as a viewer may see it (whole,
//!   redacted, or the hidden placeholder, with the action, hash links and
//!   actor it may see), borrowed from the stored event ([`shown::ShownEvent`]),
//!   and [`shown::acted`], whether the viewer acted it.
//! - [`audience`]: who is shown an event one way ([`Audience`]), the key
//!   under which a game's streams share one rendering.
//! - [`json_text`] and [`shown::ShownEvent::write_fields`]: the writer. The JSON
//!   of an event, a status and an answer, written piece by piece; the
//!   derived serde types of `model.rs` (`EventEnvelope`, `StreamEvent`,
//!   `ActionAccepted`) are the contract they are held to by tests.
//! - [`events_json`]: the one writer of a list of events, for a page of
//!   `/events` and the answer to an action ([`answer`]).
//! - [`memo`]: what is found once about each of a followed game's latest
//!   events (decoded, public or not, the status after it, its renderings
//!   by audience), one memo per event under one cap, which the game's
//!   streams share (`live/renders.rs`).

mod answer;
mod audience;
mod events_json;
mod json_text;
pub(crate) mod memo;
pub(crate) mod shown;

pub(crate) use answer::accepted_json;
pub(crate) use audience::Audience;
pub(crate) use events_json::{page_json, Page};
pub(crate) use json_text::status_json;
pub(crate) use memo::EventMemos;
pub(crate) use shown::{envelopes, shown_event_text};

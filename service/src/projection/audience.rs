//! Who is shown an event one way: the key under which a followed game's
//! streams share an event's rendering (`live/renders.rs`).

use umpire_domain::{RecordedEvent, Viewer};

use super::shown::acted;

/// Who is shown an event one way. A public event (`Game::PUBLIC_EVENTS`)
/// is shown alike to every viewer but the umpire, who also sees its hash
/// links, and its actor, who also sees the action: all others share one
/// rendering of it, spectators and seats alike.
///
/// An event hidden from a viewer is shown to them as a placeholder that is
/// the same for everyone it is hidden from (`shown::shown_event`): they
/// share its rendering too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Audience {
    Public,
    Hidden,
    Viewer(Viewer<String>),
}

impl Audience {
    /// `public` says whether the event is public (`DynMatch::is_public_event`),
    /// asked only when it matters.
    pub(crate) fn of(
        event: &RecordedEvent,
        viewer: &Viewer<String>,
        public: impl FnOnce() -> bool,
    ) -> Audience {
        if !viewer.is_umpire() && !acted(viewer, event) && public() {
            Audience::Public
        } else {
            Audience::Viewer(viewer.clone())
        }
    }
}

//! What a followed game's streams share, so that a game with many viewers
//! does its work once: each event rendered once per [`Audience`], decoded
//! once for all its viewers' redactions, and the status after it folded
//! once; all of it charged to the memory budget.

use std::sync::Arc;

use umpire_domain::erased::{DecodedEvent, StatusJson};
use umpire_domain::{DynMatch, RecordedEvent, Viewer};

use super::STREAM_PAGE;
use crate::budget::{allocation, Charge, MemoryBudget};
use crate::shown::acted;

/// Renderings a followed game keeps for its streams to share (see
/// [`Renders`]): enough for a page for each of a few viewers.
const RENDERS_KEPT: usize = 64;

/// Decoded events a followed game keeps for its streams to share (see
/// [`Renders`]): a page's worth.
const DECODED_KEPT: usize = STREAM_PAGE as usize;

/// Statuses a followed game keeps for its streams to share (see
/// [`Renders`]): more than the events of the longest single action (a
/// Flower Fields deal), so that streams catching up after one share them.
const STATUSES_KEPT: usize = 256;

/// A followed game's latest events as rendered for each viewer. What a
/// viewer is shown of an event depends on the event, the viewer and the
/// version it is judged at (the newest when read: a later event can make an
/// earlier one public), so the streams of one game that share a viewer (or
/// an [`Audience`]), and read at the same version, share one rendering: a
/// game with many spectators renders each event once for them all. Only the newest
/// version's renderings are kept, and at most [`RENDERS_KEPT`].
///
/// Each viewer's redaction of an event that is not public is its own, but
/// they all start from the stored event decoded into its game's type: the
/// latest events are kept decoded ([`DECODED_KEPT`]), so a game with five
/// seats decodes an event once rather than once per seat.
///
/// It also keeps the game's status after each of its latest events, which
/// no viewer changes and no later event changes: a stream that receives
/// several events at once needs the status after each, and only the first
/// of the game's streams to read them folds them for it.
#[derive(Default)]
pub(super) struct Renders {
    /// What `kept` and `statuses` hold is charged here ([`Charge::Renders`]).
    budget: Option<MemoryBudget>,
    charged: usize,
    judged_at: u64,
    kept: Vec<(u64, Audience, Arc<str>)>,
    /// (seq, the event decoded), oldest first, at most [`DECODED_KEPT`].
    decoded: Vec<(u64, DecodedEvent)>,
    /// (seq, the status after it), oldest first, at most [`STATUSES_KEPT`].
    statuses: Vec<(u64, StatusJson)>,
}

impl Drop for Renders {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            budget.release(Charge::Renders, self.charged);
        }
    }
}

/// What one kept status holds, beyond the `Vec` slot.
fn status_bytes(status: &StatusJson) -> usize {
    allocation(status.phase.capacity())
        + allocation(status.to_act.capacity() * std::mem::size_of::<String>())
        + status
            .to_act
            .iter()
            .map(|seat| allocation(seat.capacity()))
            .sum::<usize>()
}

impl Renders {
    pub(super) fn charging(budget: MemoryBudget) -> Renders {
        let mut renders = Renders::default();
        renders.budget = Some(budget);
        renders
    }

    /// Charges the budget for what is kept now: the renderings' JSON, the
    /// statuses and the room for the decoded events (whose typed form is
    /// the game's: counted as a fixed slot each).
    fn recharge(&mut self) {
        let Some(budget) = &self.budget else { return };
        let bytes = self
            .kept
            .iter()
            .map(|(_, _, json)| allocation(16 + json.len()) + 64)
            .sum::<usize>()
            + self
                .statuses
                .iter()
                .map(|(_, status)| status_bytes(status) + 64)
                .sum::<usize>()
            + self.decoded.len() * 512;
        budget.recharge(Charge::Renders, self.charged, bytes);
        self.charged = bytes;
    }

    /// The statuses after each of the events `first..=last`, when all are kept.
    pub(super) fn statuses(&self, first: u64, last: u64) -> Option<Vec<StatusJson>> {
        let start = self.statuses.iter().position(|(seq, _)| *seq == first)?;
        let wanted = (last + 1).checked_sub(first)? as usize;
        let run = self.statuses.get(start..start + wanted)?;
        // Kept in order without gaps, so the run's last is `last`.
        (run.last()?.0 == last).then(|| run.iter().map(|(_, status)| status.clone()).collect())
    }

    /// Keeps the status after event `seq`, events being kept in order.
    pub(super) fn keep_status(&mut self, seq: u64, status: &StatusJson) {
        if let Some((newest, _)) = self.statuses.last() {
            if seq <= *newest {
                return;
            }
            if seq != newest + 1 {
                // A gap: what is kept must run without one.
                self.statuses.clear();
            }
        }
        if self.statuses.len() >= STATUSES_KEPT {
            self.statuses.remove(0);
        }
        self.statuses.push((seq, status.clone()));
        self.recharge();
    }

    /// Event `seq` decoded, to be filled by the first redaction that
    /// needs it.
    pub(super) fn decoded(&mut self, seq: u64) -> DecodedEvent {
        if let Some((_, decoded)) = self.decoded.iter().find(|(kept, _)| *kept == seq) {
            return decoded.clone();
        }
        if self.decoded.len() >= DECODED_KEPT {
            self.decoded.remove(0);
        }
        let decoded = DecodedEvent::default();
        self.decoded.push((seq, decoded.clone()));
        self.recharge();
        decoded
    }

    pub(super) fn get(&self, judged_at: u64, seq: u64, viewer: &Audience) -> Option<Arc<str>> {
        if judged_at != self.judged_at {
            return None;
        }
        self.kept
            .iter()
            .find(|(kept_seq, kept_viewer, _)| *kept_seq == seq && kept_viewer == viewer)
            .map(|(_, _, json)| json.clone())
    }

    pub(super) fn keep(&mut self, judged_at: u64, seq: u64, viewer: &Audience, json: &Arc<str>) {
        if judged_at > self.judged_at {
            self.kept.clear();
            self.judged_at = judged_at;
        }
        if judged_at == self.judged_at && self.kept.len() < RENDERS_KEPT {
            self.kept.push((seq, viewer.clone(), json.clone()));
        }
        self.recharge();
    }
}

/// Who is shown an event one way. A public event (`Game::PUBLIC_EVENTS`)
/// is shown alike to every viewer but the umpire, who also sees its hash
/// links, and its actor, who also sees the action: all others share one
/// rendering of it, spectators and seats alike.
///
/// An event hidden from a viewer is shown to them as a placeholder that is
/// the same for everyone it is hidden from (`shown::shown_event`): they
/// share its rendering too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Audience {
    Public,
    Hidden,
    Viewer(Viewer<String>),
}

impl Audience {
    pub(super) fn of(
        now: &dyn DynMatch,
        event: &RecordedEvent,
        viewer: &Viewer<String>,
    ) -> Audience {
        if !viewer.is_umpire() && !acted(viewer, event) && now.is_public_event(&event.payload) {
            Audience::Public
        } else {
            Audience::Viewer(viewer.clone())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(phase: &str) -> StatusJson {
        StatusJson {
            phase: phase.to_string(),
            finished: false,
            to_act: vec!["red".to_string()],
            clock: None,
        }
    }

    /// Given statuses kept after events 3..=5, a run inside them is shared;
    /// a run reaching past them, or a gap, is not; and a gap starts over.
    #[test]
    fn the_statuses_after_the_latest_events_are_shared_only_as_a_whole_run() {
        let mut renders = Renders::default();
        for seq in 3..=5 {
            renders.keep_status(seq, &status(&format!("after {seq}")));
        }
        renders.keep_status(4, &status("kept already"));
        assert_eq!(
            renders.statuses(4, 5),
            Some(vec![status("after 4"), status("after 5")])
        );
        assert_eq!(renders.statuses(3, 3), Some(vec![status("after 3")]));
        assert_eq!(renders.statuses(2, 4), None);
        assert_eq!(renders.statuses(4, 6), None);

        renders.keep_status(9, &status("after 9"));
        assert_eq!(renders.statuses(3, 3), None);
        assert_eq!(renders.statuses(9, 9), Some(vec![status("after 9")]));

        for seq in 10..10 + STATUSES_KEPT as u64 {
            renders.keep_status(seq, &status("later"));
        }
        assert_eq!(renders.statuses.len(), STATUSES_KEPT);
        assert_eq!(renders.statuses(9, 9), None);
    }
}

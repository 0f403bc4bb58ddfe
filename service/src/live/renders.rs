//! What a followed game's streams share, so that a game with many viewers
//! does its work once: each event rendered once per [`Audience`], decoded
//! once for all its viewers' redactions, and the status after it folded
//! once; all of it charged to the memory budget.

use std::collections::VecDeque;
use std::sync::{Arc, Weak};

use umpire_domain::erased::DecodedEvent;
use umpire_domain::{StatusJson, Viewer};

use super::pushed::PushedPages;
use super::{StreamBatch, STREAM_PAGE};
use crate::budget::{allocation, Charge, MemoryBudget};
use crate::fold::Fold;
use crate::projection::Audience;
use umpire_domain::aggregate::GameAggregate;

/// Renderings a followed game keeps for its streams to share (see
/// [`Renders`]): enough for a page for each of a few viewers.
const RENDERS_KEPT: usize = 64;

/// Decoded events a followed game keeps for its streams to share (see
/// [`Renders`]): a long action's events (a Flower Fields deal), which its
/// streams read page by page, one stream after another: with a page's
/// worth, each seat's stream decoded the first pages again.
const DECODED_KEPT: usize = 8 * STREAM_PAGE as usize;

/// Statuses' JSON a followed game keeps for its renderings to share (see
/// [`Renders`]): a page's worth for each of a few streams.
const STATUS_TEXTS_KEPT: usize = 2 * STREAM_PAGE as usize;

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
/// of the game's streams to read them folds them for it. That one folds
/// them from the state at the newest version the game's streams have read
/// ([`Renders::base_at`]): a copy kept here, so that the next append's
/// events are folded from it rather than from the game's start (the fold
/// cache keeps only the newest fold, which the append has replaced).
#[derive(Default)]
pub(super) struct Renders {
    /// What `kept` and `statuses` hold is charged here ([`Charge::Renders`]).
    budget: Option<MemoryBudget>,
    charged: usize,
    judged_at: u64,
    kept: Vec<(u64, Audience, Arc<str>)>,
    /// (seq, the event decoded), oldest first, at most [`DECODED_KEPT`].
    decoded: VecDeque<(u64, DecodedEvent)>,
    /// (seq, the status after it), oldest first, at most [`STATUSES_KEPT`].
    statuses: Vec<(u64, Arc<StatusJson>)>,
    /// The status after the newest version read, and that version.
    head_status: Option<(u64, Arc<StatusJson>)>,
    /// (seq, whether the event is public), in the order first asked, at
    /// most [`DECODED_KEPT`]: asked of the game once, not once a stream.
    publics: VecDeque<(u64, bool)>,
    /// The newest event `publics` has held: one newer is not there.
    publics_newest: u64,
    /// The state after the newest version the streams have read, with
    /// that version and what it holds.
    base: Option<(u64, GameAggregate, usize)>,
    /// (seq, the JSON of the status after it), oldest first, at most
    /// [`STATUS_TEXTS_KEPT`]: written once for all of the event's renderings.
    status_texts: Vec<(u64, Arc<str>)>,
    /// The pages pushed to the streams at the newest version.
    pushed: PushedPages,
    /// What `kept`, `statuses` and `status_texts` hold ([`render_bytes`],
    /// [`status_bytes`]).
    kept_bytes: usize,
    statuses_bytes: usize,
    status_texts_bytes: usize,
}

impl Drop for Renders {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            budget.release(Charge::Renders, self.charged);
        }
    }
}

/// What one kept rendering holds, with its slot.
pub(super) fn render_bytes(json: &str) -> usize {
    allocation(16 + json.len()) + 64
}

/// What one kept status holds, with its slot.
fn status_bytes(status: &StatusJson) -> usize {
    64 + allocation(status.phase.capacity())
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
    /// the game's: counted as a fixed slot each). The renderings' and the
    /// statuses' bytes are counted as they come and go, not summed again.
    fn recharge(&mut self) {
        let Some(budget) = &self.budget else { return };
        let bytes = self.kept_bytes
            + self.statuses_bytes
            + self.status_texts_bytes
            + self.decoded.len() * 512
            + self.publics.len() * 16
            + self
                .head_status
                .as_ref()
                .map_or(0, |(_, status)| status_bytes(status))
            + self.base.as_ref().map_or(0, |(_, _, bytes)| *bytes)
            + self.pushed.bytes();
        budget.recharge(Charge::Renders, self.charged, bytes);
        self.charged = bytes;
    }

    /// The statuses after each of the events from `first` on, up to
    /// `last`, as far as they are kept without a break (none when the
    /// status after `first` is not kept).
    pub(super) fn statuses(&self, first: u64, last: u64) -> Vec<Arc<StatusJson>> {
        let Some(start) = self.statuses.iter().position(|(seq, _)| *seq == first) else {
            return Vec::new();
        };
        let wanted = (last + 1).saturating_sub(first) as usize;
        // Kept in order without gaps: the run from `first` is consecutive.
        self.statuses[start..]
            .iter()
            .take(wanted)
            .map(|(_, status)| status.clone())
            .collect()
    }

    /// Keeps the status after event `seq`, events being kept in order.
    pub(super) fn keep_status(&mut self, seq: u64, status: &Arc<StatusJson>) {
        if let Some((newest, _)) = self.statuses.last() {
            if seq <= *newest {
                return;
            }
            if seq != newest + 1 {
                // A gap: what is kept must run without one.
                self.statuses.clear();
                self.statuses_bytes = 0;
            }
        }
        if self.statuses.len() >= STATUSES_KEPT {
            let (_, oldest) = self.statuses.remove(0);
            self.statuses_bytes -= status_bytes(&oldest);
        }
        self.statuses_bytes += status_bytes(status);
        self.statuses.push((seq, status.clone()));
        self.recharge();
    }

    /// Whether the state after version `version` should be kept (it is
    /// newer than the one kept).
    pub(super) fn wants_base(&self, version: u64) -> bool {
        self.base
            .as_ref()
            .is_none_or(|(kept, _, _)| *kept < version)
    }

    /// Keeps `copy`, the state after version `version` (the newest the
    /// game's streams have read, at the head or a page into a long action),
    /// unless a newer one is kept; `state_bytes` is what it holds
    /// ([`crate::fold::Fold::state_bytes`] of a fold near it).
    pub(super) fn keep_base(&mut self, version: u64, copy: GameAggregate, state_bytes: usize) {
        if self.wants_base(version) {
            self.base = Some((version, copy, state_bytes + 64));
            self.recharge();
        }
    }

    /// Whether the state kept is the one after version `version`.
    pub(super) fn has_base_at(&self, version: u64) -> bool {
        matches!(&self.base, Some((kept, _, _)) if *kept == version)
    }

    /// Keeps `batch`, the page after version `after` as `viewer` is
    /// shown it, for the game's other streams of that viewer at `after`
    /// ([`PushedPages::push`]).
    pub(super) fn push(
        &mut self,
        after: u64,
        viewer: &Viewer<String>,
        batch: &StreamBatch,
        fold: Weak<Fold>,
    ) {
        if self.pushed.push(after, viewer, batch, fold) {
            self.recharge();
        }
    }

    /// The page pushed to `viewer`'s streams at `after`, with the fold it
    /// ends at, if one is kept that reaches version `announced`.
    pub(super) fn pushed(
        &self,
        after: u64,
        viewer: &Viewer<String>,
        announced: u64,
    ) -> Option<(StreamBatch, Weak<Fold>)> {
        self.pushed.get(after, viewer, announced)
    }

    /// A copy of the state after version `version`, if that is the one kept.
    pub(super) fn base_at(&self, version: u64) -> Option<GameAggregate> {
        match &self.base {
            Some((kept, folded, _)) if *kept == version => Some(folded.clone()),
            _ => None,
        }
    }

    /// Keeps the events `first_seq..` as their game decided them, already
    /// in its type (`decided`): the instance that appended them has them
    /// so, and its streams then redact them without decoding their JSON.
    /// An event kept already is left as it is.
    pub(super) fn keep_decided(&mut self, first_seq: u64, decided: &[DecodedEvent]) {
        for (seq, decoded) in (first_seq..).zip(decided) {
            if self.decoded.iter().any(|(kept, _)| *kept == seq) {
                continue;
            }
            if self.decoded.len() >= DECODED_KEPT {
                self.decoded.pop_front();
            }
            self.decoded.push_back((seq, decoded.clone()));
        }
        self.recharge();
    }

    /// Event `seq` decoded, to be filled by the first redaction that
    /// needs it.
    pub(super) fn decoded(&mut self, seq: u64) -> DecodedEvent {
        // Newest first: streams read the latest events.
        if let Some((_, decoded)) = self.decoded.iter().rev().find(|(kept, _)| *kept == seq) {
            return decoded.clone();
        }
        if self.decoded.len() >= DECODED_KEPT {
            self.decoded.pop_front();
        }
        let decoded = DecodedEvent::default();
        self.decoded.push_back((seq, decoded.clone()));
        self.recharge();
        decoded
    }

    /// The status after version `version`, the newest read, made by
    /// `status` when it is not the one kept.
    pub(super) fn head_status(
        &mut self,
        version: u64,
        status: impl FnOnce() -> StatusJson,
    ) -> Arc<StatusJson> {
        match &self.head_status {
            Some((kept, kept_status)) if *kept == version => kept_status.clone(),
            Some((kept, _)) if *kept > version => Arc::new(status()),
            _ => {
                let made = Arc::new(status());
                // Small and one per game: counted as a status kept.
                self.head_status = Some((version, made.clone()));
                // It also ends the run of statuses the game's streams
                // share when it follows on: a stream a version or more
                // behind then folds on from the state kept at the head
                // (`base_at`) rather than from the game's start.
                if self
                    .statuses
                    .last()
                    .is_none_or(|(newest, _)| newest + 1 == version)
                {
                    self.keep_status(version, &made);
                }
                made
            }
        }
    }

    /// Whether event `seq` is public, as `public` says when not kept.
    pub(super) fn is_public(&mut self, seq: u64, public: impl FnOnce() -> bool) -> bool {
        // An event newer than any kept is asked for first: it is not there,
        // and scanning all that is kept to find so (as every new event's
        // first stream did) cost more than the scans that find one.
        if seq <= self.publics_newest {
            if let Some((_, kept)) = self.publics.iter().rev().find(|(kept, _)| *kept == seq) {
                return *kept;
            }
        }
        self.publics_newest = self.publics_newest.max(seq);
        let public = public();
        if self.publics.len() >= DECODED_KEPT {
            self.publics.pop_front();
        }
        self.publics.push_back((seq, public));
        public
    }

    /// The JSON of the status after event `seq`, if kept.
    pub(super) fn status_text(&self, seq: u64) -> Option<Arc<str>> {
        self.status_texts
            .iter()
            .rev()
            .find(|(kept, _)| *kept == seq)
            .map(|(_, text)| text.clone())
    }

    /// Keeps the JSON of the status after event `seq` (which never changes).
    pub(super) fn keep_status_text(&mut self, seq: u64, text: &Arc<str>) {
        if self.status_texts.iter().any(|(kept, _)| *kept == seq) {
            return;
        }
        if self.status_texts.len() >= STATUS_TEXTS_KEPT {
            let (_, oldest) = self.status_texts.remove(0);
            self.status_texts_bytes -= render_bytes(&oldest);
        }
        self.status_texts_bytes += render_bytes(text);
        self.status_texts.push((seq, text.clone()));
        self.recharge();
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
            self.kept_bytes = 0;
            self.judged_at = judged_at;
        }
        if judged_at == self.judged_at && self.kept.len() < RENDERS_KEPT {
            self.kept_bytes += render_bytes(json);
            self.kept.push((seq, viewer.clone(), json.clone()));
        }
        self.recharge();
    }
}

#[cfg(test)]
mod tests;

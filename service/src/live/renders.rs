//! What a followed game's streams share, so that a game with many viewers
//! does its work once: the memo of each of its latest events (decoded once
//! for all its viewers' redactions, rendered once per audience, the status
//! after it folded once: `projection/memo.rs`), the state its streams fold
//! on from, and the pages pushed to them; all of it charged to the memory
//! budget as one.

use std::sync::{Arc, Weak};

use umpire_domain::erased::DecodedEvent;
use umpire_domain::{StatusJson, Viewer};

use super::pushed::PushedPages;
use super::StreamBatch;
use crate::budget::{Charge, MemoryBudget};
use crate::fold::Fold;
use crate::projection::memo::status_bytes;
use crate::projection::{Audience, EventMemos};
use umpire_domain::aggregate::GameAggregate;

/// What a followed game's streams share. The memos ([`EventMemos`]) are
/// the projection's; here besides them is the state at the newest version
/// the game's streams have read ([`Renders::base_at`]): kept (at the head,
/// the fold's own state, shared) so that the next append's events are
/// folded from it rather than from the game's start (the fold cache keeps
/// only the newest fold, which the append has replaced), the status at that
/// version, and the pages pushed.
#[derive(Default)]
pub(super) struct Renders {
    /// What is kept is charged here ([`Charge::Renders`]).
    budget: Option<MemoryBudget>,
    charged: usize,
    memos: EventMemos,
    /// The status after the newest version read, that version, and what
    /// the status holds (counted once, not at every change of the rest).
    head_status: Option<(u64, Arc<StatusJson>, usize)>,
    /// The state after the newest version the streams have read, with
    /// that version and what it holds: at the head, the fold's own (shared,
    /// not copied), which stays when the next append replaces the fold.
    base: Option<(u64, Arc<GameAggregate>, usize)>,
    /// The pages pushed to the streams at the newest version.
    pushed: PushedPages,
}

impl Drop for Renders {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            budget.release(Charge::Renders, self.charged);
        }
    }
}

impl Renders {
    pub(super) fn charging(budget: MemoryBudget) -> Renders {
        let mut renders = Renders::default();
        renders.budget = Some(budget);
        renders
    }

    /// Charges the budget for what is kept now.
    fn recharge(&mut self) {
        let Some(budget) = &self.budget else { return };
        let bytes = self.memos.bytes()
            + self.head_status.as_ref().map_or(0, |(_, _, bytes)| *bytes)
            + self.base.as_ref().map_or(0, |(_, _, bytes)| *bytes)
            + self.pushed.bytes();
        budget.recharge(Charge::Renders, self.charged, bytes);
        self.charged = bytes;
    }

    /// The statuses after each of the events from `first` on, up to
    /// `last`, as far as they are kept without a break.
    pub(super) fn statuses(&self, first: u64, last: u64) -> Vec<Arc<StatusJson>> {
        self.memos.statuses(first, last)
    }

    /// Keeps the status after event `seq`.
    pub(super) fn keep_status(&mut self, seq: u64, status: &Arc<StatusJson>) {
        self.memos.keep_status(seq, status);
        self.recharge();
    }

    /// Whether the state after version `version` should be kept (it is
    /// newer than the one kept).
    pub(super) fn wants_base(&self, version: u64) -> bool {
        self.base
            .as_ref()
            .is_none_or(|(kept, _, _)| *kept < version)
    }

    /// Keeps the state after version `version` (the newest the game's
    /// streams have read, at the head or a page into a long action), made
    /// by `state` only unless a newer one is kept; `state_bytes` is what it
    /// holds ([`crate::fold::Fold::state_bytes`] of a fold near it).
    pub(super) fn keep_base(
        &mut self,
        version: u64,
        state: impl FnOnce() -> Arc<GameAggregate>,
        state_bytes: usize,
    ) {
        if self.wants_base(version) {
            self.base = Some((version, state(), state_bytes + 64));
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
            Some((kept, folded, _)) if *kept == version => Some(GameAggregate::clone(folded)),
            _ => None,
        }
    }

    /// Keeps the events `first_seq..` as their game decided them
    /// ([`EventMemos::keep_decided`]).
    pub(super) fn keep_decided(&mut self, first_seq: u64, decided: &[DecodedEvent]) {
        self.memos.keep_decided(first_seq, decided);
        self.recharge();
    }

    /// Event `seq` decoded, to be filled by the first redaction that
    /// needs it.
    pub(super) fn decoded(&mut self, seq: u64) -> DecodedEvent {
        let decoded = self.memos.decoded(seq);
        self.recharge();
        decoded
    }

    /// The status after version `version`, the newest read, made by
    /// `status` when it is not the one kept. (An append hands the status
    /// it made for its answer here before it pushes: `Live::push`.)
    pub(super) fn head_status(
        &mut self,
        version: u64,
        status: impl FnOnce() -> Arc<StatusJson>,
    ) -> Arc<StatusJson> {
        match &self.head_status {
            Some((kept, kept_status, _)) if *kept == version => kept_status.clone(),
            Some((kept, _, _)) if *kept > version => status(),
            _ => {
                let made = status();
                // Small and one per game: counted as a status kept.
                self.head_status = Some((version, made.clone(), status_bytes(&made)));
                // It also ends the run of statuses the game's streams
                // share when it follows on: a stream a version or more
                // behind then folds on from the state kept at the head
                // (`base_at`) rather than from the game's start.
                if self
                    .memos
                    .newest_status()
                    .is_none_or(|newest| newest + 1 == version)
                {
                    self.memos.keep_status(version, &made);
                }
                self.recharge();
                made
            }
        }
    }

    /// Whether event `seq` is public, as `public` says when not kept.
    pub(super) fn is_public(&mut self, seq: u64, public: impl FnOnce() -> bool) -> bool {
        let answer = self.memos.is_public(seq, public);
        self.recharge();
        answer
    }

    /// Event `seq` as `audience` is shown it judged at `judged_at`, if
    /// kept; else what its rendering starts from. Asked once, under one
    /// lock, for every rendering a stream or a push makes.
    pub(super) fn kept(&mut self, judged_at: u64, seq: u64, audience: &Audience) -> Kept {
        if let Some(json) = self.memos.rendering(judged_at, seq, audience) {
            return Kept::Rendering(json);
        }
        let decoded = self.memos.decoded(seq);
        let status_text = self.memos.status_text(seq);
        self.recharge();
        Kept::ToRender {
            decoded,
            status_text,
        }
    }

    /// Keeps event `seq` as `audience` is shown it judged at `judged_at`,
    /// and the JSON of the status after it (which never changes) when it
    /// was made for it.
    pub(super) fn keep(
        &mut self,
        judged_at: u64,
        seq: u64,
        audience: &Audience,
        json: &Arc<str>,
        status_text: Option<&Arc<str>>,
    ) {
        if let Some(text) = status_text {
            self.memos.keep_status_text(seq, text);
        }
        self.memos.keep_rendering(judged_at, seq, audience, json);
        self.recharge();
    }
}

/// What [`Renders::kept`] finds of an event for an audience.
pub(super) enum Kept {
    Rendering(Arc<str>),
    /// Not rendered for it: the event decoded (filled by the first
    /// redaction that needs it, and shared), and the JSON of the status
    /// after it if kept.
    ToRender {
        decoded: DecodedEvent,
        status_text: Option<Arc<str>>,
    },
}

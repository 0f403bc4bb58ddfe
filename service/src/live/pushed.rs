//! The pages pushed to a followed game's streams at its head: each append
//! of this instance renders the page after it once for each viewer the
//! game's streams follow as, and every stream of that viewer at that
//! position takes it without reading the game (`cursor.rs`).

use std::sync::Weak;

use umpire_domain::Viewer;

use super::renders::render_bytes;
use super::{RenderedEvent, StreamBatch};
use crate::budget::allocation;
use crate::fold::Fold;

/// Pages a followed game keeps pushed to its streams at the head: one per
/// viewer its streams follow as (seats, spectators, the umpire) at one or
/// two positions.
const PUSHED_KEPT: usize = 16;

/// The pages pushed to the streams at the newest version a page was
/// pushed for, at most [`PUSHED_KEPT`].
#[derive(Default)]
pub(super) struct PushedPages {
    pages: Vec<Pushed>,
    /// What they hold ([`pushed_bytes`]).
    bytes: usize,
}

/// A page pushed to the streams of one viewer at one position: the
/// position it starts after, its viewer, and the fold it ends at (the
/// stream's base once it has taken the page).
struct Pushed {
    after: u64,
    viewer: Viewer<String>,
    batch: StreamBatch,
    fold: Weak<Fold>,
}

/// What one pushed page holds: its slot and its list, and its renderings
/// too, counted again if the game's renders hold them (they may have let
/// them go).
fn pushed_bytes(batch: &StreamBatch) -> usize {
    128 + allocation(batch.events.len() * std::mem::size_of::<RenderedEvent>() + 16)
        + batch
            .events
            .iter()
            .map(|event| render_bytes(&event.json))
            .sum::<usize>()
}

impl PushedPages {
    /// What the pages hold, to be charged to the memory budget.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Keeps `batch`, the page after version `after` as `viewer` is shown
    /// it, ending at the game's head (`fold`). Only the newest head's
    /// pages are kept: a page for an older head, or one that stops short
    /// of its head, is not; a newer head lets the older pages go. Says
    /// whether what is kept changed.
    pub(super) fn push(
        &mut self,
        after: u64,
        viewer: &Viewer<String>,
        batch: &StreamBatch,
        fold: Weak<Fold>,
    ) -> bool {
        let newest = self.pages.first().map_or(0, |pushed| pushed.batch.head);
        if batch.head < newest || batch.version != batch.head {
            return false;
        }
        let mut changed = false;
        if batch.head > newest && !self.pages.is_empty() {
            self.pages.clear();
            self.bytes = 0;
            changed = true;
        }
        let kept = self
            .pages
            .iter()
            .any(|pushed| pushed.after == after && pushed.viewer == *viewer);
        if kept || self.pages.len() >= PUSHED_KEPT {
            return changed;
        }
        self.bytes += pushed_bytes(batch);
        self.pages.push(Pushed {
            after,
            viewer: viewer.clone(),
            batch: batch.clone(),
            fold,
        });
        true
    }

    /// The page pushed to `viewer`'s streams at `after`, with the fold it
    /// ends at, if one is kept that reaches version `announced`: an older
    /// one would leave a stream waiting at a head that has moved.
    pub(super) fn get(
        &self,
        after: u64,
        viewer: &Viewer<String>,
        announced: u64,
    ) -> Option<(StreamBatch, Weak<Fold>)> {
        self.pages
            .iter()
            .find(|pushed| {
                pushed.after == after && pushed.batch.head >= announced && pushed.viewer == *viewer
            })
            .map(|pushed| (pushed.batch.clone(), pushed.fold.clone()))
    }
}

//! The pages pushed to a followed game's streams at its head: each append
//! of this instance renders the page after it once for each viewer the
//! game's streams follow as, and every stream of that viewer at that
//! position takes it without reading the game (`cursor.rs`).

use std::sync::Weak;

use umpire_domain::Viewer;

use super::{RenderedEvent, StreamBatch};
use crate::budget::allocation;
use crate::fold::Fold;
use crate::projection::memo::text_bytes;

/// Pages a followed game keeps pushed to its streams: one per viewer its
/// streams follow as (seats, spectators, the umpire) for each of its last
/// few appends, so that a stream an append or two behind (its connection
/// was still sending the last page when the next came) takes them in turn.
const PUSHED_KEPT: usize = 32;

/// The pages pushed to a game's streams, newest last, at most
/// [`PUSHED_KEPT`]: the oldest goes first.
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
            .map(|event| text_bytes(&event.json))
            .sum::<usize>()
}

impl PushedPages {
    /// What the pages hold, to be charged to the memory budget.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Keeps `batch`, the page after version `after` as `viewer` is shown
    /// it, judged at the game's head when it was made (`fold`; a long
    /// append's first pages stop short of it), unless one is kept already.
    /// Says whether what is kept changed.
    pub(super) fn push(
        &mut self,
        after: u64,
        viewer: &Viewer<String>,
        batch: &StreamBatch,
        fold: Weak<Fold>,
    ) -> bool {
        let kept = self
            .pages
            .iter()
            .any(|pushed| pushed.after == after && pushed.viewer == *viewer);
        if kept || batch.events.is_empty() {
            return false;
        }
        if self.pages.len() >= PUSHED_KEPT {
            let oldest = self.pages.remove(0);
            self.bytes -= pushed_bytes(&oldest.batch);
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
    /// ends at, if one is kept. Its head is at least `announced`: a page
    /// an append behind says that more is waiting, so that its stream reads
    /// on rather than wait at a head that has moved (with the news of it
    /// already taken).
    pub(super) fn get(
        &self,
        after: u64,
        viewer: &Viewer<String>,
        announced: u64,
    ) -> Option<(StreamBatch, Weak<Fold>)> {
        let pushed = (self.pages.iter().rev())
            .find(|pushed| pushed.after == after && pushed.viewer == *viewer)?;
        let mut batch = pushed.batch.clone();
        batch.head = batch.head.max(announced);
        Some((batch, pushed.fold.clone()))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use umpire_domain::StatusJson;

    use super::*;

    fn page(after: u64, version: u64, head: u64) -> StreamBatch {
        StreamBatch {
            events: (after + 1..=version)
                .map(|seq| RenderedEvent {
                    seq,
                    json: format!("{{\"seq\":{seq}}}").into(),
                })
                .collect(),
            reissued: false,
            version,
            status: Arc::new(StatusJson {
                phase: "playing".into(),
                finished: false,
                to_act: Vec::new(),
                clock: None,
            }),
            head,
        }
    }

    /// Given pages pushed for a few appends and two viewers: each viewer
    /// finds only its own page at a position; a page an append behind
    /// comes with the head announced since, and a long append's first page
    /// with its own head (so its stream reads on); a page kept already is
    /// not kept again; and past the limit the oldest goes, with the bytes
    /// it held.
    #[test]
    fn pages_are_found_by_position_and_viewer_and_the_oldest_go_first() {
        let red = Viewer::Seat("red".to_string());
        let mut pages = PushedPages::default();
        assert!(pages.push(3, &Viewer::Spectator, &page(3, 5, 5), Weak::new()));
        assert!(pages.push(3, &red, &page(3, 5, 5), Weak::new()));
        assert!(pages.push(5, &Viewer::Spectator, &page(5, 6, 6), Weak::new()));
        assert!(!pages.push(5, &Viewer::Spectator, &page(5, 6, 6), Weak::new()));
        assert!(pages.push(6, &red, &page(6, 8, 9), Weak::new()));
        let (taken, _) = pages.get(6, &red, 9).expect("a long append's first page");
        assert_eq!((taken.version, taken.head), (8, 9), "more is waiting");

        let (taken, _) = pages.get(3, &Viewer::Spectator, 6).expect("kept");
        assert_eq!((taken.version, taken.head), (5, 6), "more is waiting");
        let (taken, _) = pages.get(5, &Viewer::Spectator, 6).expect("kept");
        assert_eq!((taken.version, taken.head), (6, 6));
        assert!(pages.get(5, &red, 6).is_none(), "not red's");
        assert!(pages.get(4, &Viewer::Spectator, 6).is_none());

        let before = pages.bytes();
        for after in 10..10 + PUSHED_KEPT as u64 {
            pages.push(
                after,
                &Viewer::Spectator,
                &page(after, after + 1, after + 1),
                Weak::new(),
            );
        }
        assert_eq!(pages.pages.len(), PUSHED_KEPT);
        assert!(
            pages.get(3, &Viewer::Spectator, 6).is_none(),
            "the oldest went"
        );
        assert!(pages.get(10, &Viewer::Spectator, 11).is_some());
        let summed: usize = pages
            .pages
            .iter()
            .map(|page| pushed_bytes(&page.batch))
            .sum();
        assert_eq!(pages.bytes(), summed);
        assert_ne!(pages.bytes(), before);
    }
}

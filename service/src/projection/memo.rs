//! What is found once about each of a followed game's latest events and
//! shared by every viewer of it: one memo per event, holding the event
//! decoded into its game's type, whether it is public, the game's status
//! after it (and that status's JSON), and its renderings, one per
//! [`Audience`]. One cap ([`REMEMBERED_BYTES`]) and one count of bytes for
//! all of it.
//!
//! What a viewer is shown of an event depends on the event, the viewer
//! and the version it is judged at (the newest when read: a later event
//! can make an earlier one public), so renderings are kept only for the
//! newest version any stream has rendered at; the rest of a memo never
//! changes once found (a status after an event, whether it is public as
//! judged by the rules, the decoded event).

use std::collections::VecDeque;
use std::sync::Arc;

use umpire_domain::erased::DecodedEvent;
use umpire_domain::StatusJson;

use super::Audience;
use crate::budget::allocation;

/// What a followed game's memos may hold, in bytes: the oldest are let go
/// beyond it. Room for the statuses after a few hundred events (more than
/// the longest single action, a Flower Fields deal, so that streams
/// catching up after one share them) and a page of renderings for each of
/// a game's audiences.
pub(crate) const REMEMBERED_BYTES: usize = 384 * 1024;

/// What one memo holds without its status and renderings: its slot and
/// the decoded event (its game's type, counted as a fixed size).
const MEMO_BYTES: usize = 64 + 512;

/// What is known of one event (see the module).
#[derive(Default)]
struct EventMemo {
    seq: u64,
    decoded: DecodedEvent,
    public: Option<bool>,
    status: Option<Arc<StatusJson>>,
    status_text: Option<Arc<str>>,
    /// Each judged at [`EventMemos::judged_at`].
    renderings: Vec<(Audience, Arc<str>)>,
}

impl EventMemo {
    fn bytes(&self) -> usize {
        MEMO_BYTES
            + self.status.as_deref().map_or(0, status_bytes)
            + self.status_text.as_deref().map_or(0, text_bytes)
            + self
                .renderings
                .iter()
                .map(|(_, json)| text_bytes(json) + std::mem::size_of::<Audience>())
                .sum::<usize>()
    }
}

/// What one kept text holds.
pub(crate) fn text_bytes(json: &str) -> usize {
    allocation(16 + json.len()) + 32
}

/// What one kept status holds.
pub(crate) fn status_bytes(status: &StatusJson) -> usize {
    64 + allocation(status.phase.capacity())
        + allocation(status.to_act.capacity() * std::mem::size_of::<String>())
        + status
            .to_act
            .iter()
            .map(|seat| allocation(seat.capacity()))
            .sum::<usize>()
}

/// A followed game's memos, oldest event first.
#[derive(Default)]
pub(crate) struct EventMemos {
    memos: VecDeque<EventMemo>,
    /// The version the renderings kept are judged at.
    judged_at: u64,
    /// What the memos hold, counted as they change.
    bytes: usize,
}

impl EventMemos {
    /// What the memos hold, in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    fn find(&self, seq: u64) -> Option<&EventMemo> {
        // Streams read the latest events: the newest is looked at first.
        match self.memos.back() {
            Some(newest) if newest.seq < seq => None,
            _ => {
                let at = self
                    .memos
                    .binary_search_by_key(&seq, |memo| memo.seq)
                    .ok()?;
                Some(&self.memos[at])
            }
        }
    }

    /// Changes the memo of `seq` (made when there is none) with `change`,
    /// counting what it holds before and after; the oldest memos are let
    /// go beyond [`REMEMBERED_BYTES`]. An event older than every memo
    /// kept is not remembered once the cap is reached: `change` is then
    /// given a memo of its own, dropped after.
    fn change<T>(&mut self, seq: u64, change: impl FnOnce(&mut EventMemo) -> T) -> T {
        let at = match self.memos.binary_search_by_key(&seq, |memo| memo.seq) {
            Ok(at) => at,
            Err(at) => {
                if at == 0 && !self.memos.is_empty() && self.bytes >= REMEMBERED_BYTES {
                    return change(&mut EventMemo {
                        seq,
                        ..EventMemo::default()
                    });
                }
                self.memos.insert(
                    at,
                    EventMemo {
                        seq,
                        ..EventMemo::default()
                    },
                );
                self.bytes += MEMO_BYTES;
                at
            }
        };
        let memo = &mut self.memos[at];
        let before = memo.bytes();
        let changed = change(memo);
        let after = memo.bytes();
        self.bytes = self.bytes + after - before;
        while self.bytes > REMEMBERED_BYTES && self.memos.len() > 1 {
            let oldest = self.memos.pop_front().expect("more than one memo");
            self.bytes -= oldest.bytes();
        }
        changed
    }

    /// Keeps the events `first_seq..` as their game decided them, already
    /// in its type (`decided`): the instance that appended them has them
    /// so, and its streams then redact them without decoding their JSON.
    /// An event decoded already is left as it is.
    pub(crate) fn keep_decided(&mut self, first_seq: u64, decided: &[DecodedEvent]) {
        for (seq, decoded) in (first_seq..).zip(decided) {
            self.change(seq, |memo| {
                if !memo.decoded.is_decoded() {
                    memo.decoded = decoded.clone();
                }
            });
        }
    }

    /// Event `seq` decoded, to be filled by the first redaction that
    /// needs it and shared with the rest.
    pub(crate) fn decoded(&mut self, seq: u64) -> DecodedEvent {
        if let Some(memo) = self.find(seq) {
            return memo.decoded.clone();
        }
        self.change(seq, |memo| memo.decoded.clone())
    }

    /// Whether event `seq` is public, asked of `public` (the game) once.
    pub(crate) fn is_public(&mut self, seq: u64, public: impl FnOnce() -> bool) -> bool {
        if let Some(known) = self.find(seq).and_then(|memo| memo.public) {
            return known;
        }
        let answer = public();
        self.change(seq, |memo| memo.public = Some(answer));
        answer
    }

    /// The statuses after each of the events from `first` on, up to
    /// `last`, as far as they are kept without a break (none when the
    /// status after `first` is not kept).
    pub(crate) fn statuses(&self, first: u64, last: u64) -> Vec<Arc<StatusJson>> {
        let Ok(start) = self.memos.binary_search_by_key(&first, |memo| memo.seq) else {
            return Vec::new();
        };
        let mut statuses = Vec::new();
        for (memo, seq) in self.memos.range(start..).zip(first..=last) {
            match &memo.status {
                Some(status) if memo.seq == seq => statuses.push(status.clone()),
                _ => break,
            }
        }
        statuses
    }

    /// The newest event whose status after it is kept.
    pub(crate) fn newest_status(&self) -> Option<u64> {
        self.memos
            .iter()
            .rev()
            .find(|memo| memo.status.is_some())
            .map(|memo| memo.seq)
    }

    /// Keeps the status after event `seq` (which never changes).
    pub(crate) fn keep_status(&mut self, seq: u64, status: &Arc<StatusJson>) {
        if self.find(seq).is_some_and(|memo| memo.status.is_some()) {
            return;
        }
        self.change(seq, |memo| memo.status = Some(status.clone()));
    }

    /// The JSON of the status after event `seq`, if kept.
    pub(crate) fn status_text(&self, seq: u64) -> Option<Arc<str>> {
        self.find(seq).and_then(|memo| memo.status_text.clone())
    }

    /// Keeps the JSON of the status after event `seq`.
    pub(crate) fn keep_status_text(&mut self, seq: u64, text: &Arc<str>) {
        if self
            .find(seq)
            .is_some_and(|memo| memo.status_text.is_some())
        {
            return;
        }
        self.change(seq, |memo| memo.status_text = Some(text.clone()));
    }

    /// Event `seq` as `audience` is shown it judged at version
    /// `judged_at`, if rendered so.
    pub(crate) fn rendering(
        &self,
        judged_at: u64,
        seq: u64,
        audience: &Audience,
    ) -> Option<Arc<str>> {
        if judged_at != self.judged_at {
            return None;
        }
        let memo = self.find(seq)?;
        memo.renderings
            .iter()
            .find(|(kept, _)| kept == audience)
            .map(|(_, json)| json.clone())
    }

    /// Keeps event `seq` as `audience` is shown it judged at `judged_at`:
    /// renderings judged at an older version are let go first, and one
    /// judged at an older version than those kept is not kept.
    pub(crate) fn keep_rendering(
        &mut self,
        judged_at: u64,
        seq: u64,
        audience: &Audience,
        json: &Arc<str>,
    ) {
        if judged_at < self.judged_at {
            return;
        }
        if judged_at > self.judged_at {
            for memo in &mut self.memos {
                if !memo.renderings.is_empty() {
                    let before = memo.bytes();
                    memo.renderings.clear();
                    self.bytes -= before - memo.bytes();
                }
            }
            self.judged_at = judged_at;
        }
        self.change(seq, |memo| {
            if !memo.renderings.iter().any(|(kept, _)| kept == audience) {
                memo.renderings.push((audience.clone(), json.clone()));
            }
        });
    }

    /// What the memos hold, summed from scratch: what [`EventMemos::bytes`]
    /// must say.
    #[cfg(test)]
    pub(crate) fn summed(&self) -> usize {
        self.memos.iter().map(EventMemo::bytes).sum()
    }

    /// How many events are remembered.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.memos.len()
    }
}

#[cfg(test)]
mod tests;

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
            + self.renderings.iter().map(rendering_bytes).sum::<usize>()
    }
}

/// What one kept rendering holds, with its audience.
fn rendering_bytes((_, json): &(Audience, Arc<str>)) -> usize {
    text_bytes(json) + std::mem::size_of::<Audience>()
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
    /// The events that have renderings kept.
    rendered: Vec<u64>,
    /// What the memos hold, counted as they change.
    bytes: usize,
}

impl EventMemos {
    /// What the memos hold, in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Where the memo of `seq` is (`Ok`), or would go (`Err`), as a binary
    /// search says. Memos are usually of consecutive events (a game's
    /// streams read them in order), so the place `seq` would have if they
    /// are is looked at first, and a memo newer than every other found
    /// without a search.
    fn place(&self, seq: u64) -> Result<usize, usize> {
        let (Some(oldest), Some(newest)) = (self.memos.front(), self.memos.back()) else {
            return Err(0);
        };
        if seq > newest.seq {
            return Err(self.memos.len());
        }
        if seq < oldest.seq {
            return Err(0);
        }
        let consecutive = (seq - oldest.seq) as usize;
        match self.memos.get(consecutive) {
            Some(memo) if memo.seq == seq => Ok(consecutive),
            _ => self.memos.binary_search_by_key(&seq, |memo| memo.seq),
        }
    }

    fn find(&self, seq: u64) -> Option<&EventMemo> {
        self.place(seq).ok().map(|at| &self.memos[at])
    }

    /// The place of the memo of `seq`, made when there is none; `None`
    /// for an event older than every memo kept once the cap is reached,
    /// which is not remembered.
    fn slot(&mut self, seq: u64) -> Option<usize> {
        match self.place(seq) {
            Ok(at) => Some(at),
            Err(0) if !self.memos.is_empty() && self.bytes >= REMEMBERED_BYTES => None,
            Err(at) => {
                self.memos.insert(
                    at,
                    EventMemo {
                        seq,
                        ..EventMemo::default()
                    },
                );
                self.bytes += MEMO_BYTES;
                Some(at)
            }
        }
    }

    /// Counts `added` more bytes, and lets the oldest memos go beyond
    /// [`REMEMBERED_BYTES`].
    fn grown(&mut self, added: usize) {
        self.bytes += added;
        while self.bytes > REMEMBERED_BYTES && self.memos.len() > 1 {
            let oldest = self.memos.pop_front().expect("more than one memo");
            self.bytes -= oldest.bytes();
            if !oldest.renderings.is_empty() {
                self.rendered.retain(|seq| *seq != oldest.seq);
            }
        }
    }

    /// Keeps the events `first_seq..` as their game decided them, already
    /// in its type (`decided`): the instance that appended them has them
    /// so, and its streams then redact them without decoding their JSON.
    /// An event decoded already is left as it is.
    pub(crate) fn keep_decided(&mut self, first_seq: u64, decided: &[DecodedEvent]) {
        for (seq, decoded) in (first_seq..).zip(decided) {
            if let Some(at) = self.slot(seq) {
                let memo = &mut self.memos[at];
                if !memo.decoded.is_decoded() {
                    memo.decoded = decoded.clone();
                }
                self.grown(0);
            }
        }
    }

    /// Event `seq` decoded, to be filled by the first redaction that
    /// needs it and shared with the rest.
    pub(crate) fn decoded(&mut self, seq: u64) -> DecodedEvent {
        if let Some(memo) = self.find(seq) {
            return memo.decoded.clone();
        }
        let Some(at) = self.slot(seq) else {
            return DecodedEvent::default();
        };
        let decoded = self.memos[at].decoded.clone();
        self.grown(0);
        decoded
    }

    /// Whether event `seq` is public, asked of `public` (the game) once.
    pub(crate) fn is_public(&mut self, seq: u64, public: impl FnOnce() -> bool) -> bool {
        if let Some(known) = self.find(seq).and_then(|memo| memo.public) {
            return known;
        }
        let answer = public();
        if let Some(at) = self.slot(seq) {
            self.memos[at].public = Some(answer);
            self.grown(0);
        }
        answer
    }

    /// The statuses after each of the events from `first` on, up to
    /// `last`, as far as they are kept without a break (none when the
    /// status after `first` is not kept).
    pub(crate) fn statuses(&self, first: u64, last: u64) -> Vec<Arc<StatusJson>> {
        let Ok(start) = self.place(first) else {
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
        let Some(at) = self.slot(seq) else { return };
        let memo = &mut self.memos[at];
        if memo.status.is_none() {
            memo.status = Some(status.clone());
            self.grown(status_bytes(status));
        }
    }

    /// The JSON of the status after event `seq`, if kept.
    pub(crate) fn status_text(&self, seq: u64) -> Option<Arc<str>> {
        self.find(seq).and_then(|memo| memo.status_text.clone())
    }

    /// Keeps the JSON of the status after event `seq`.
    pub(crate) fn keep_status_text(&mut self, seq: u64, text: &Arc<str>) {
        let Some(at) = self.slot(seq) else { return };
        let memo = &mut self.memos[at];
        if memo.status_text.is_none() {
            memo.status_text = Some(text.clone());
            self.grown(text_bytes(text));
        }
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
            // Only the memos rendered at the older version are looked at.
            for seq in std::mem::take(&mut self.rendered) {
                if let Ok(at) = self.place(seq) {
                    let memo = &mut self.memos[at];
                    self.bytes -= memo.renderings.iter().map(rendering_bytes).sum::<usize>();
                    memo.renderings.clear();
                }
            }
            self.judged_at = judged_at;
        }
        let Some(at) = self.slot(seq) else { return };
        let memo = &mut self.memos[at];
        if memo.renderings.iter().any(|(kept, _)| kept == audience) {
            return;
        }
        if memo.renderings.is_empty() {
            self.rendered.push(seq);
        }
        let rendering = (audience.clone(), json.clone());
        let added = rendering_bytes(&rendering);
        memo.renderings.push(rendering);
        self.grown(added);
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

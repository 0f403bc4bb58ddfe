//! The fold cache's bookkeeping: entries kept least recently used first
//! out, within a count and the room the memory budget leaves them, each
//! charged to the budget by what it measures. Generic over what is kept, so
//! that its tests keep sizes rather than folds.

use std::num::NonZeroUsize;

use lru::LruCache;
use uuid::Uuid;

use crate::budget::{Charge, MemoryBudget};

/// Entries (the fold cache's folds), least recently used first out, within
/// a count and the room the memory budget leaves them.
pub(crate) struct ChargedLru<F> {
    folds: LruCache<Uuid, F>,
    /// What a fold holds in memory.
    bytes_of: fn(&F) -> usize,
    /// The bytes of every fold in `folds`, charged to the budget.
    bytes: usize,
    pub(crate) budget: MemoryBudget,
}

impl<F> Drop for ChargedLru<F> {
    fn drop(&mut self) {
        self.budget.release(Charge::Folds, self.bytes);
    }
}

impl<F: Clone> ChargedLru<F> {
    pub(crate) fn new(
        max_games: usize,
        budget: MemoryBudget,
        bytes_of: fn(&F) -> usize,
    ) -> ChargedLru<F> {
        ChargedLru {
            folds: LruCache::new(NonZeroUsize::new(max_games.max(1)).expect("non-zero")),
            bytes_of,
            bytes: 0,
            budget,
        }
    }

    fn forget(&mut self, fold: &F) {
        let bytes = (self.bytes_of)(fold);
        self.bytes -= bytes;
        self.budget.release(Charge::Folds, bytes);
    }

    /// Lets the least recently used folds go until the cache holds at most
    /// `bytes` (keeping the newest `keep` folds).
    pub(crate) fn shrink_to(&mut self, bytes: usize, keep: usize) {
        while self.bytes > bytes && self.folds.len() > keep {
            match self.folds.pop_lru() {
                Some((_, gone)) => self.forget(&gone),
                None => break,
            }
        }
    }

    pub(crate) fn get(&mut self, game_id: &Uuid) -> Option<F> {
        self.folds.get(game_id).cloned()
    }

    pub(crate) fn peek(&self, game_id: &Uuid) -> Option<&F> {
        self.folds.peek(game_id)
    }

    /// Keeps `fold`, replacing the game's older one, then lets the least
    /// recently used folds go until the budget's room fits (always keeping
    /// this one). Nothing in it can panic: the counts only ever subtract
    /// what they added.
    pub(crate) fn put(&mut self, game_id: Uuid, fold: F) {
        let bytes = (self.bytes_of)(&fold);
        self.bytes += bytes;
        self.budget.add(Charge::Folds, bytes);
        // `push` hands back the entry it replaced or the one it evicted.
        if let Some((_, gone)) = self.folds.push(game_id, fold) {
            self.forget(&gone);
        }
        let room = self.budget.room_for(Charge::Folds);
        self.shrink_to(room, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Metrics;

    /// A cache of folds that are just their sizes, in a budget of
    /// `max_bytes` that nothing else charges.
    fn cache(max_games: usize, max_bytes: usize) -> ChargedLru<usize> {
        ChargedLru::new(
            max_games,
            Metrics::unregistered().memory_budget(max_bytes),
            |bytes| *bytes,
        )
    }

    fn game(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    #[test]
    fn folds_fit_in_both_the_games_and_the_events_allowed() {
        let mut folds = cache(3, 100);
        folds.put(game(1), 40);
        folds.put(game(2), 40);
        assert_eq!(folds.bytes, 80);
        // Game 1 is used, so game 2 is the least recently used.
        assert_eq!(folds.get(&game(1)), Some(40));
        folds.put(game(3), 30);
        assert_eq!(folds.get(&game(2)), None, "over 100 events: game 2 goes");
        assert_eq!(folds.bytes, 70);
        folds.put(game(4), 1);
        folds.put(game(5), 1);
        assert_eq!(folds.folds.len(), 3, "at most three games");
        assert_eq!(folds.get(&game(1)), None);
        assert_eq!(folds.bytes, 32);
    }

    #[test]
    fn a_newer_fold_of_a_game_replaces_its_count() {
        let mut folds = cache(3, 100);
        folds.put(game(1), 40);
        folds.put(game(1), 60);
        assert_eq!(folds.bytes, 60);
        assert_eq!(folds.get(&game(1)), Some(60));
        folds.put(game(2), 50);
        assert_eq!(folds.get(&game(1)), None, "110 events: the older game goes");
        assert_eq!(folds.bytes, 50);
    }

    /// The cache keeps to seven eighths of its room: the rest is for what
    /// the budget does not charge.
    #[test]
    fn folds_leave_an_eighth_of_the_budget_uncharged() {
        let mut folds = cache(10, 160);
        folds.put(game(1), 50);
        folds.put(game(2), 50);
        folds.put(game(3), 50);
        assert_eq!(folds.get(&game(1)), None, "150 bytes is past 140");
        assert_eq!(folds.bytes, 100);
    }

    #[test]
    fn a_game_larger_than_the_room_is_still_cached_alone() {
        let mut folds = cache(3, 100);
        folds.put(game(1), 10);
        folds.put(game(2), 500);
        assert_eq!(folds.get(&game(2)), Some(500));
        assert_eq!(folds.get(&game(1)), None);
        assert_eq!(folds.bytes, 500);
    }

    /// Given folds filling the budget, a reservation elsewhere makes them
    /// give way, the least recently used first, and the budget shows what
    /// they hold.
    #[test]
    fn folds_give_way_to_reservations_and_are_charged_to_the_budget() {
        // 128 bytes: the cache keeps to 112, leaving an eighth uncharged.
        let mut folds = cache(10, 128);
        let budget = folds.budget.clone();
        folds.put(game(1), 30);
        folds.put(game(2), 30);
        folds.put(game(3), 30);
        assert_eq!(budget.charged(Charge::Folds), 90);
        assert!(budget.try_reserve(Charge::Bodies, 50).is_none());
        let room = budget.room_for(Charge::Folds);
        folds.shrink_to(room.saturating_sub(50), 0);
        assert_eq!(folds.get(&game(1)), None);
        assert_eq!(folds.get(&game(2)), Some(30));
        assert_eq!(folds.get(&game(3)), Some(30));
        let body = budget.try_reserve(Charge::Bodies, 50).expect("room made");
        folds.put(game(4), 30);
        assert_eq!(
            folds.get(&game(2)),
            None,
            "the body and the uncharged eighth leave room for two folds"
        );
        assert_eq!(budget.total(), 110);
        drop(body);
        drop(folds);
        assert_eq!(budget.total(), 0, "a cache dropped gives its charge back");
    }
}

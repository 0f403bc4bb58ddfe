//! Submissions to one game take turns within a service instance.
//!
//! Without this, N simultaneous submissions to one game all decide on the
//! same version and race to append at it: one wins, the others lose, decide
//! again on the next version and race again — with 50 at once most ran out of
//! attempts and an idempotent retry could be refused by the rules because its
//! own first attempt had just changed the state. Taking turns, each decides
//! on the state the previous one left, and only another instance can still
//! append in between (the store's `(game_id, seq)` key catches that).

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Instant;

use parking_lot::Mutex;
use tokio::sync::{Mutex as TurnLock, OwnedMutexGuard};
use uuid::Uuid;

/// One lock per game that has a submission in flight. Entries of games
/// nobody is waiting on are dropped, so the map holds at most as many
/// games as there are requests in flight (plus those not yet swept).
#[derive(Clone, Default)]
pub struct Turns {
    games: Arc<Mutex<HashMap<Uuid, Weak<TurnLock<()>>>>>,
}

/// Holding it is this request's turn at its game.
pub struct Turn {
    _guard: OwnedMutexGuard<()>,
}

/// The turn did not come before the deadline.
#[derive(Debug)]
pub struct TurnTimedOut;

impl Turns {
    /// Waits for the game's turn until `deadline`.
    pub async fn take(&self, game_id: Uuid, deadline: Instant) -> Result<Turn, TurnTimedOut> {
        let lock = self.lock_of(game_id);
        let remaining = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(remaining, lock.lock_owned()).await {
            Ok(guard) => Ok(Turn { _guard: guard }),
            Err(_) => Err(TurnTimedOut),
        }
    }

    fn lock_of(&self, game_id: Uuid) -> Arc<TurnLock<()>> {
        let mut games = self.games.lock();
        if let Some(lock) = games.get(&game_id).and_then(Weak::upgrade) {
            return lock;
        }
        if games.len() >= 1024 && games.len().is_power_of_two() {
            games.retain(|_, lock| lock.strong_count() > 0);
        }
        let lock = Arc::new(TurnLock::new(()));
        games.insert(game_id, Arc::downgrade(&lock));
        lock
    }

    /// How many games it holds an entry for, swept or not (the sweep keeps
    /// this bounded).
    pub fn tracked(&self) -> usize {
        self.games.lock().len()
    }
}

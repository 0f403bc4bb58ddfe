//! Cold folds take turns. A game not in the fold cache is read whole from
//! storage and folded from its start before the cache charges it to the
//! memory budget, so only [`COLD_FOLDS_AT_ONCE`] run at once per instance:
//! with a log's length capped (`log_length.rs`), that bounds what cold
//! reads hold uncharged, and the CPU they take from the workers. Requests
//! that find every turn taken wait up to [`COLD_FOLD_WAIT`], then are
//! answered `busy` (503, `Retry-After`).
//!
//! `/metrics` shows the turns (`umpire_cold_folds{state}`): how many
//! requests wait for one and how many fold.

use std::sync::Arc;
use std::time::Duration;

use prometheus::IntGauge;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ServiceError;

/// Games read and folded from nothing at once.
pub const COLD_FOLDS_AT_ONCE: usize = 4;

/// How long a request waits for a cold fold's turn before it is `busy`.
pub const COLD_FOLD_WAIT: Duration = Duration::from_secs(10);

/// The turns at cold folds of one instance.
#[derive(Clone)]
pub(crate) struct ColdFolds {
    turns: Arc<Semaphore>,
    waiting: IntGauge,
    folding: IntGauge,
}

impl ColdFolds {
    /// [`COLD_FOLDS_AT_ONCE`] turns, counted on `waiting` (requests
    /// waiting for a turn) and `folding` (turns held).
    pub fn new(waiting: IntGauge, folding: IntGauge) -> ColdFolds {
        ColdFolds {
            turns: Arc::new(Semaphore::new(COLD_FOLDS_AT_ONCE)),
            waiting,
            folding,
        }
    }

    /// A turn, held until the [`ColdTurn`] is dropped; `busy` after
    /// [`COLD_FOLD_WAIT`] without one.
    pub async fn turn(&self) -> Result<ColdTurn, ServiceError> {
        let waiting = Counted::new(&self.waiting);
        let permit = tokio::time::timeout(COLD_FOLD_WAIT, self.turns.clone().acquire_owned())
            .await
            .map_err(|_| busy())?
            .expect("the semaphore is never closed");
        drop(waiting);
        Ok(ColdTurn {
            _permit: permit,
            _folding: Counted::new(&self.folding),
        })
    }
}

/// A turn at a cold fold, counted while held.
pub(crate) struct ColdTurn {
    _permit: OwnedSemaphorePermit,
    _folding: Counted,
}

/// One more on a gauge while alive.
struct Counted(IntGauge);

impl Counted {
    fn new(gauge: &IntGauge) -> Counted {
        gauge.inc();
        Counted(gauge.clone())
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.dec();
    }
}

fn busy() -> ServiceError {
    ServiceError::Busy {
        message: "The service is reading as many games from storage as it may at once; \
                  send it again shortly."
            .into(),
    }
}

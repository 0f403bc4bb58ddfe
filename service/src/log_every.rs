//! Logging what clients can make happen often, at most once in a while.
//!
//! A refusal (a stream past its limit, a request past the memory budget) is
//! worth a WARN line to an operator, but a client hammering at a limit must
//! not flood the log: each is counted in `/metrics`, and a line is written
//! at most once every period, saying how many went unlogged since.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

pub struct LogEvery {
    every: Duration,
    last: Mutex<Option<Instant>>,
    unlogged: AtomicU64,
}

impl LogEvery {
    pub const fn new(every: Duration) -> LogEvery {
        LogEvery {
            every,
            last: Mutex::new(None),
            unlogged: AtomicU64::new(0),
        }
    }

    pub fn every(&self) -> Duration {
        self.every
    }

    /// `Some(how many went unlogged since the last line)` when a line is
    /// due now; `None` (counted) when one was written within the period.
    pub fn due(&self) -> Option<u64> {
        let mut last = self.last.lock();
        if last.is_some_and(|at| at.elapsed() < self.every) {
            self.unlogged.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        *last = Some(Instant::now());
        Some(self.unlogged.swap(0, Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within the period one line is due, and the next says how many were
    /// not logged meanwhile.
    #[test]
    fn one_line_per_period_counting_the_rest() {
        let log = LogEvery::new(Duration::from_secs(3600));
        assert_eq!(log.due(), Some(0));
        assert_eq!(log.due(), None);
        assert_eq!(log.due(), None);
        *log.last.lock() = Some(Instant::now() - Duration::from_secs(3601));
        assert_eq!(log.due(), Some(2));
        let always = LogEvery::new(Duration::ZERO);
        assert_eq!(always.due(), Some(0));
        assert_eq!(always.due(), Some(0));
    }
}

//! One read from one database: how it failed (the store's own error, so
//! that a standby's outage can be told from a bug, or the fold's), and a
//! standby passed by for it. Shared by whole folds (`folds.rs`) and reads
//! resumed from a snapshot (`snapshots.rs`).

use umpire_storage::StoreError;

use crate::error::ServiceError;
use crate::replicas::{Replicas, Skip};

/// A standby whose read failed is passed by, counted by why: behind (the
/// game not there yet), down, or an answer that could not be used.
pub(crate) fn pass_by(replicas: &Replicas, index: usize, name: &str, error: Attempt) {
    match error {
        Attempt::Store(StoreError::GameNotFound(_)) => replicas.skipped(index, Skip::Behind),
        Attempt::Store(StoreError::Unavailable(error)) => {
            tracing::debug!(standby = %name, %error, "a standby refused a read");
            replicas.skipped(index, Skip::Down)
        }
        error => {
            tracing::warn!(standby = %name, error = %ServiceError::from(error), "a standby's answer could not be used; reading from the primary");
            replicas.skipped(index, Skip::Failed)
        }
    }
}

/// How reading a fold from one database failed: the store's own error (so
/// that a standby's outage can be told from a bug), or the fold's.
#[derive(Debug)]
pub(crate) enum Attempt {
    Store(StoreError),
    Fold(ServiceError),
}

impl From<StoreError> for Attempt {
    fn from(error: StoreError) -> Self {
        Attempt::Store(error)
    }
}

impl From<ServiceError> for Attempt {
    fn from(error: ServiceError) -> Self {
        Attempt::Fold(error)
    }
}

impl From<Attempt> for ServiceError {
    fn from(attempt: Attempt) -> Self {
        match attempt {
            Attempt::Store(error) => error.into(),
            Attempt::Fold(error) => error,
        }
    }
}

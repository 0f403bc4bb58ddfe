//! The PostgreSQL event store: one append-only stream per game, tokens,
//! idempotency records and rejected actions. The private local cluster the
//! service and the tests start when no database URL is given is
//! umpire-pgcluster's; the store only connects to it.
//!
//! Storage owns all SQL. Nothing here knows a game's rules: events are JSON
//! with a type, and the hash chain is computed over their canonical encoding.

mod announce;
mod append;
pub mod bulk;
mod clock_checks;
mod databases;
mod group_commit;
mod invitation_rows;
mod invitations;
pub mod listing;
mod page_sessions;
pub mod pool;
mod snapshots;
mod standby;
pub mod store;
#[cfg(feature = "testing")]
pub mod testing;

pub use announce::{AppendListener, Appended, APPENDS_CHANNEL};
pub use append::{GameResult, Head, IdempotentAnswer, IdempotentRequest, NewEvent};
pub use bulk::{BulkGame, FullGame, ImportGame, ImportOutcome};
pub use clock_checks::ClockCheck;
pub use databases::{ensure_database, with_database};
pub use group_commit::{BatchObserver, GroupCommitLimits};
pub use invitation_rows::NewInvitation;
pub use invitations::{Grantee, Redemption};
pub use listing::{GameListFilter, GamePage, ListCursor, ListedGame, GAMES_EXAMINED_PER_PAGE};
pub use pool::{
    connect, connect_waiting, connect_with, logs_in_as_superuser, migrate, Pool, PoolTimeouts,
    POOL_WAIT,
};
pub use snapshots::FoldSnapshot;
pub use standby::Replay;
pub use store::{
    hash_token, AppendOutcome, Archive, EventStore, GameRecord, NewGame, NewToken, RejectionCursor,
    RejectionPage, TokenGrant, REFUSALS_KEPT_PER_GAME, REFUSALS_KEPT_PER_VERSION,
    REFUSALS_NOT_KEPT_CODE,
};

/// Every way the store can fail, as the API sees it.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("there is no game {0}")]
    GameNotFound(uuid::Uuid),
    #[error("the game is at version {actual}, not the expected {expected}")]
    Conflict { expected: u64, actual: u64 },
    #[error("this Idempotency-Key was already used with a different request")]
    IdempotencyKeyReused,
    #[error("the database is unavailable: {0}")]
    Unavailable(String),
    #[error("database error")]
    Database(#[source] tokio_postgres::Error),
    #[error("migration failed: {0}")]
    Migration(String),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(error: tokio_postgres::Error) -> Self {
        // A closed connection or a refused connect is an outage, not a bug:
        // the API answers 503 with Retry-After for it.
        if error.is_closed() || error.code().is_none() && error.as_db_error().is_none() {
            return StoreError::Unavailable(error.to_string());
        }
        if let Some(code) = error.code() {
            let code = code.code();
            // 57P01..57P03: admin shutdown, crash shutdown, cannot connect now.
            // 57014: statement timeout.
            // 25006: a write reached a node that is (now) a standby, as
            // when a failover demotes the primary under an open
            // connection: the next connection finds the new primary.
            if code.starts_with("57P")
                || code == "57014"
                || code == "25006"
                || code.starts_with("08")
            {
                return StoreError::Unavailable(error.to_string());
            }
        }
        StoreError::Database(error)
    }
}

impl From<deadpool_postgres::PoolError> for StoreError {
    fn from(error: deadpool_postgres::PoolError) -> Self {
        match error {
            deadpool_postgres::PoolError::Backend(error) => error.into(),
            other => StoreError::Unavailable(other.to_string()),
        }
    }
}

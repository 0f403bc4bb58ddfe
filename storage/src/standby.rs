//! What a read target says of itself: whether it is a standby, how far
//! behind its primary it is, and how far a game's log reaches there. The
//! service routes reads by these (`umpire_service::replicas`).

use std::time::Duration;

use uuid::Uuid;

use crate::{Archive, EventStore, StoreError};

/// A database's replay of its primary's WAL, as it reports it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Replay {
    /// False for a primary (or a standby since promoted).
    pub in_recovery: bool,
    /// How long ago the newest transaction it has replayed was committed,
    /// when WAL it received is still waiting to be replayed; zero when it
    /// has replayed all it received.
    pub lag: Duration,
    /// `pg_wal_replay_pause()` holds it.
    pub paused: bool,
}

impl EventStore {
    /// How this database replays its primary (one statement).
    pub async fn replay(&self) -> Result<Replay, StoreError> {
        let client = self.pool().get().await?;
        let row = client
            .query_one(
                "SELECT pg_is_in_recovery(),
                        CASE WHEN NOT pg_is_in_recovery()
                               OR pg_last_wal_receive_lsn() IS NULL
                               OR pg_last_wal_replay_lsn() >= pg_last_wal_receive_lsn()
                             THEN 0
                             ELSE COALESCE(extract(epoch FROM
                                    clock_timestamp() - pg_last_xact_replay_timestamp()), 0)
                        END::float8,
                        CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused()
                             ELSE false END",
                &[],
            )
            .await?;
        let lag: f64 = row.get(1);
        Ok(Replay {
            in_recovery: row.get(0),
            lag: Duration::try_from_secs_f64(lag.max(0.0)).unwrap_or(Duration::MAX),
            paused: row.get(2),
        })
    }

    /// How many events of `game_id` this database holds (zero for a game
    /// it does not have).
    pub async fn events_held(&self, game_id: Uuid) -> Result<u64, StoreError> {
        let client = self.pool().get().await?;
        let statement = client
            .prepare_cached("SELECT COALESCE(max(seq), 0) FROM events WHERE game_id = $1")
            .await?;
        let row = client.query_one(&statement, &[&game_id]).await?;
        Ok(u64::try_from(row.get::<_, i64>(0)).unwrap_or(0))
    }
}

impl EventStore {
    /// A finished game whole, if this database holds its end: its
    /// `game_results` row is written by the statement that appends the
    /// ending events (migrations/V8) and a finished game takes no more
    /// events, so a standby holding the row holds the whole log. `None`
    /// for a game in progress, or one this database does not have (yet).
    pub async fn finished_archive(&self, game_id: Uuid) -> Result<Option<Archive>, StoreError> {
        let client = self.pool().get().await?;
        let statement = client
            .prepare_cached("SELECT version FROM game_results WHERE game_id = $1")
            .await?;
        let Some(row) = client.query_opt(&statement, &[&game_id]).await? else {
            return Ok(None);
        };
        drop(client);
        let version = u64::try_from(row.get::<_, i64>(0)).unwrap_or(0);
        let archive = self.archive(game_id).await?;
        if archive.events.len() as u64 != version {
            return Err(StoreError::Corrupt(format!(
                "game {game_id} ended at version {version} but {} events are stored",
                archive.events.len()
            )));
        }
        Ok(Some(archive))
    }
}

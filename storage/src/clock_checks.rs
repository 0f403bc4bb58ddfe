//! When to look at each clocked game's clock (migrations/V7): the rows the
//! appends mark, read by every instance's timekeeper, set to the next
//! deadline once a game's clock has been folded. Never the log.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::{EventStore, StoreError};

/// A clocked game to look at: its id and the version it was marked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockCheck {
    pub game_id: Uuid,
    pub version: u64,
}

impl EventStore {
    /// Up to `limit` clocked games whose look is due now, the most overdue
    /// first.
    pub async fn due_clock_checks(&self, limit: u32) -> Result<Vec<ClockCheck>, StoreError> {
        let client = self.pool().get().await?;
        let statement = client
            .prepare_cached(
                "SELECT game_id, version FROM clock_checks \
                 WHERE check_at <= now() ORDER BY check_at LIMIT $1",
            )
            .await?;
        let rows = client.query(&statement, &[&i64::from(limit)]).await?;
        Ok(rows
            .iter()
            .map(|row| ClockCheck {
                game_id: row.get(0),
                version: u64::try_from(row.get::<_, i64>(1)).unwrap_or(0),
            })
            .collect())
    }

    /// When the next look at any clock is due, if any is.
    pub async fn next_clock_check(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        let client = self.pool().get().await?;
        let statement = client
            .prepare_cached("SELECT min(check_at) FROM clock_checks")
            .await?;
        Ok(client.query_one(&statement, &[]).await?.get(0))
    }

    /// The game's next look is at `check_at` (`None`: not until its next
    /// append), as folded at `version`; left alone if an append has marked
    /// the game since. Whether it was set.
    pub async fn set_clock_check(
        &self,
        game_id: Uuid,
        version: u64,
        check_at: Option<DateTime<Utc>>,
    ) -> Result<bool, StoreError> {
        let client = self.pool().get().await?;
        let statement = client
            .prepare_cached(
                "UPDATE clock_checks SET check_at = $3 WHERE game_id = $1 AND version = $2",
            )
            .await?;
        let version = i64::try_from(version).unwrap_or(i64::MAX);
        Ok(client
            .execute(
                &statement,
                &[
                    &game_id as &(dyn tokio_postgres::types::ToSql + Sync),
                    &version,
                    &check_at,
                ],
            )
            .await?
            == 1)
    }
}

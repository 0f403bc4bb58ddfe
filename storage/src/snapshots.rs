//! Snapshots of a game's fold (migrations/V11): its state and clock kept
//! every so many versions by the service, so that a read at a past version
//! of a game not in memory starts from the one before it. A derived table,
//! never the log.

use serde_json::Value;
use uuid::Uuid;

use crate::{EventStore, StoreError};

/// A game's state and clock at one version, as the service keeps them.
#[derive(Debug, Clone, PartialEq)]
pub struct FoldSnapshot {
    pub version: u64,
    /// The game's state (`DynMatch::snapshot`).
    pub state: Value,
    /// The game's clock, for a game created with one.
    pub clock: Option<Value>,
    /// The SHA-256 (hex) of the umpire's view of the state when it was kept.
    pub view_sha256: String,
    /// The reissues of the seats' tokens up to `version`; `None` in a row
    /// written before they were kept (migrations/V13).
    pub seat_tokens: Option<Value>,
}

impl EventStore {
    /// Keeps `snapshots` of a game's fold written in `format`; a version
    /// kept already stays as it was. One statement.
    pub async fn keep_snapshots(
        &self,
        game_id: Uuid,
        format: &str,
        snapshots: &[FoldSnapshot],
    ) -> Result<(), StoreError> {
        let versions: Vec<i64> = snapshots
            .iter()
            .map(|kept| i64::try_from(kept.version).unwrap_or(i64::MAX))
            .collect();
        let states: Vec<&Value> = snapshots.iter().map(|kept| &kept.state).collect();
        let clocks: Vec<Option<&Value>> =
            snapshots.iter().map(|kept| kept.clock.as_ref()).collect();
        let hashes: Vec<&str> = snapshots
            .iter()
            .map(|kept| kept.view_sha256.as_str())
            .collect();
        let seat_tokens: Vec<Option<&Value>> = snapshots
            .iter()
            .map(|kept| kept.seat_tokens.as_ref())
            .collect();
        let client = self.pool().get().await?;
        let statement = client
            .prepare_cached(
                "INSERT INTO fold_snapshots
                     (game_id, format, version, state, clock, view_sha256, seat_tokens)
                 SELECT $1, $2, * FROM unnest($3::bigint[], $4::jsonb[], $5::jsonb[], $6::text[],
                                              $7::jsonb[])
                 ON CONFLICT DO NOTHING",
            )
            .await?;
        client
            .execute(
                &statement,
                &[
                    &game_id,
                    &format,
                    &versions,
                    &states,
                    &clocks,
                    &hashes,
                    &seat_tokens,
                ],
            )
            .await?;
        Ok(())
    }

    /// The newest snapshot of the game written in `format` at or before
    /// `version`, if one is kept.
    pub async fn snapshot_at_or_before(
        &self,
        game_id: Uuid,
        format: &str,
        version: u64,
    ) -> Result<Option<FoldSnapshot>, StoreError> {
        let client = self.pool().get().await?;
        let statement = client
            .prepare_cached(
                "SELECT version, state, clock, view_sha256, seat_tokens FROM fold_snapshots
                 WHERE game_id = $1 AND format = $2 AND version <= $3
                 ORDER BY version DESC LIMIT 1",
            )
            .await?;
        let version = i64::try_from(version).unwrap_or(i64::MAX);
        let row = client
            .query_opt(&statement, &[&game_id, &format, &version])
            .await?;
        Ok(row.map(|row| FoldSnapshot {
            version: u64::try_from(row.get::<_, i64>(0)).unwrap_or(0),
            state: row.get(1),
            clock: row.get(2),
            view_sha256: row.get(3),
            seat_tokens: row.get(4),
        }))
    }

    /// The newest version of the game kept in `format`, 0 for none.
    pub async fn newest_snapshot(&self, game_id: Uuid, format: &str) -> Result<u64, StoreError> {
        let client = self.pool().get().await?;
        let statement = client
            .prepare_cached(
                "SELECT coalesce(max(version), 0) FROM fold_snapshots
                 WHERE game_id = $1 AND format = $2",
            )
            .await?;
        let newest: i64 = client
            .query_one(&statement, &[&game_id, &format])
            .await?
            .get(0);
        Ok(u64::try_from(newest).unwrap_or(0))
    }
}

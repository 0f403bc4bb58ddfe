//! The event store API the service calls: create a game, append with an
//! expected version, read a stream, tokens, idempotency and rejections.

use chrono::{DateTime, SecondsFormat, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio_postgres::error::SqlState;
use umpire_domain::chain::{ChainLink, GENESIS_HASH};
use uuid::Uuid;

use crate::group_commit::{
    insert_appends, BatchObserver, GroupCommit, GroupCommitLimits, GroupOutcome, LinkedAppend,
};
use crate::{Pool, StoreError};

/// An event about to be stored.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub event_type: String,
    pub payload: Value,
    /// `system`, `umpire` or `seat:<name>`.
    pub actor: String,
    /// The action that caused it; `Value::Null` for setup events.
    pub action: Value,
    pub rules_version: u32,
}

/// An event as stored, with its place in the hash chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredEvent {
    pub seq: u64,
    pub event_type: String,
    pub payload: Value,
    pub actor: String,
    pub action: Value,
    /// The version the causing action was decided against; shared by every
    /// event of one append (0 for setup events).
    pub decided_at: u64,
    pub rules_version: u32,
    /// RFC 3339, UTC, microseconds.
    pub recorded_at: String,
    pub prev_hash: String,
    pub hash: String,
}

impl StoredEvent {
    /// The fields the hash covers, for recomputing it.
    pub fn chain_link<'a>(&'a self, game_id: &'a str) -> ChainLink<'a> {
        ChainLink {
            game_id,
            seq: self.seq,
            event_type: &self.event_type,
            payload: &self.payload,
            actor: &self.actor,
            action: &self.action,
            decided_at: self.decided_at,
            rules_version: self.rules_version,
            recorded_at: &self.recorded_at,
            prev_hash: &self.prev_hash,
        }
    }
}

/// Verifies a stream's hash chain from its first event; returns the first
/// sequence number whose link does not hold, with the reason.
pub fn verify_chain(game_id: &str, events: &[StoredEvent]) -> Result<(), (u64, String)> {
    let mut expected_prev = GENESIS_HASH.to_string();
    for (index, event) in events.iter().enumerate() {
        let expected_seq = index as u64 + 1;
        if event.seq != expected_seq {
            return Err((
                event.seq,
                format!("expected sequence number {expected_seq}"),
            ));
        }
        if event.prev_hash != expected_prev {
            return Err((
                event.seq,
                "prev_hash does not match the previous event's hash".into(),
            ));
        }
        let recomputed = event.chain_link(game_id).hash();
        if recomputed != event.hash {
            return Err((event.seq, "hash does not match the event's contents".into()));
        }
        expected_prev = event.hash.clone();
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenRole {
    Umpire,
    Seat,
}

#[derive(Debug, Clone)]
pub struct NewToken {
    pub token_hash: String,
    pub role: TokenRole,
    pub seat: Option<String>,
}

#[derive(Debug, Clone)]
pub struct NewGame {
    pub game_id: Uuid,
    pub game: String,
    pub options: Value,
    pub seed: i64,
    pub rules_version: u32,
    pub setup_events: Vec<NewEvent>,
    pub tokens: Vec<NewToken>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GameRecord {
    pub game_id: Uuid,
    pub game: String,
    pub options: Value,
    pub seed: i64,
    pub rules_version: u32,
    pub created_at: DateTime<Utc>,
}

/// A whole stored game, for export and audit.
#[derive(Debug, Clone)]
pub struct Archive {
    pub record: GameRecord,
    pub events: Vec<StoredEvent>,
}

/// Where a page of rejections ended: the next page starts after it.
#[derive(Debug, Clone, PartialEq)]
pub struct RejectionCursor {
    at_version: i64,
    recorded_at: DateTime<Utc>,
    rejection_id: Uuid,
}

/// One page of a game's rejections, and where the next one starts (`None`
/// after the last).
#[derive(Debug, Clone)]
pub struct RejectionPage {
    pub rejections: Vec<Rejection>,
    pub next: Option<RejectionCursor>,
}

/// A refused action, kept outside the stream for audit.
#[derive(Debug, Clone, Serialize)]
pub struct Rejection {
    pub at_version: u64,
    pub actor: String,
    pub action: Value,
    pub code: String,
    pub message: String,
    pub rule: Option<String>,
    pub rules_version: u32,
    pub recorded_at: String,
    /// How many times this refusal was made: identical refusals are counted
    /// on one row, not stored again. 1 when recording (each call counts one).
    pub repeats: u64,
}

/// At most this many distinct refusals are kept per (game, actor, version);
/// with games of bounded length and seats, a game's stored refusals are
/// bounded by its version × (seats + umpire) × (this + 1 overflow row).
pub const REFUSALS_KEPT_PER_VERSION: u64 = 32;

/// The code of the one row per (game, actor, version) that counts the
/// distinct refusals made beyond [`REFUSALS_KEPT_PER_VERSION`]; its action is
/// `null` and its `repeats` is how many were not kept.
pub const REFUSALS_NOT_KEPT_CODE: &str = "refusals_not_kept";

/// The message of that overflow row.
pub fn refusals_not_kept_message() -> String {
    format!(
        "Further distinct actions refused to this actor at this version, beyond the \
         {REFUSALS_KEPT_PER_VERSION} kept, are counted here but not stored."
    )
}

/// An `Idempotency-Key` with the hash of the request it came with and the
/// response to store for it.
#[derive(Debug, Clone)]
pub struct IdempotentRequest {
    pub key: String,
    pub request_hash: String,
    pub response: Value,
}

/// SHA-256 of a token, hex: what is stored and looked up.
pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn now() -> DateTime<Utc> {
    // Postgres keeps microseconds; truncating here makes the hashed string
    // identical to what is read back.
    Utc::now().trunc_subsecs(6)
}

/// The hashed and served form of a time: RFC 3339 in UTC with exactly six
/// fractional digits, e.g. `2026-11-23T16:43:22.120000Z` (what
/// `%Y-%m-%dT%H:%M:%S%.6fZ` gives, without parsing a format per event).
pub(crate) fn format_time(time: &DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// The columns of a rejection, then the columns of its place in audit order.
const REJECTIONS_PAGE: &str = "
    SELECT at_version, actor, action, code, message, rule, rules_version, recorded_at, rejection_id,
           repeats
    FROM rejected_actions";

/// Audit order: by the version refused at, then by time; the id breaks ties
/// (imported rejections may share a time), so every read gives one order.
const REJECTIONS_ORDER: &str = "ORDER BY at_version, recorded_at, rejection_id";

fn rejection_from_row(row: &tokio_postgres::Row) -> Rejection {
    Rejection {
        at_version: version_of(row.get(0)),
        actor: row.get(1),
        action: row.get(2),
        code: row.get(3),
        message: row.get(4),
        rule: row.get(5),
        rules_version: u32::try_from(row.get::<_, i32>(6)).unwrap_or(0),
        recorded_at: format_time(&row.get(7)),
        repeats: u64::try_from(row.get::<_, i64>(9)).unwrap_or(1),
    }
}

fn version_of(seq: i64) -> u64 {
    u64::try_from(seq).unwrap_or(0)
}

const READ_EVENTS: &str = "
    SELECT seq, event_type, payload, actor, action, rules_version, recorded_at, prev_hash, hash,
           decided_at
    FROM events WHERE game_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4";

fn event_from_row(row: &tokio_postgres::Row) -> StoredEvent {
    let recorded_at: DateTime<Utc> = row.get(6);
    let action: Option<Value> = row.get(4);
    StoredEvent {
        seq: version_of(row.get(0)),
        event_type: row.get(1),
        payload: row.get(2),
        actor: row.get(3),
        action: action.unwrap_or(Value::Null),
        decided_at: version_of(row.get(9)),
        rules_version: u32::try_from(row.get::<_, i32>(5)).unwrap_or(0),
        recorded_at: format_time(&recorded_at),
        prev_hash: row.get(7),
        hash: row.get(8),
    }
}

/// The store, over a pool. Cheap to clone.
#[derive(Clone)]
pub struct EventStore {
    pool: Pool,
    /// Concurrent appends share statements (see `group_commit`).
    group: GroupCommit,
}

/// What an append did.
#[derive(Debug, Clone)]
pub enum AppendOutcome {
    Appended(Vec<StoredEvent>),
    /// The idempotency key was already used for the same request: here is the
    /// response stored with it; nothing new was written.
    Replayed(Value),
}

impl EventStore {
    pub fn new(pool: Pool) -> Self {
        Self::with_group_commit(pool, GroupCommitLimits::default())
    }

    pub fn with_group_commit(pool: Pool, limits: GroupCommitLimits) -> Self {
        EventStore {
            pool,
            group: GroupCommit::new(limits),
        }
    }

    /// Calls `observer` with the number of appends in every statement the
    /// group commit writes and its duration (for the metrics).
    pub fn observe_batches(&mut self, observer: std::sync::Arc<BatchObserver>) {
        self.group.observe_batches(observer);
    }

    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// True when a connection can be had and answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        let client = self.pool.get().await?;
        client.simple_query("SELECT 1").await?;
        Ok(())
    }

    /// Creates a game with its tokens and setup events in one transaction.
    pub async fn create_game(&self, game: NewGame) -> Result<Vec<StoredEvent>, StoreError> {
        let mut client = self.pool.get().await?;
        let transaction = client.transaction().await?;
        transaction
            .execute(
                "INSERT INTO games (game_id, game, options, seed, rules_version)
                 VALUES ($1, $2, $3, $4, $5)",
                &[
                    &game.game_id,
                    &game.game,
                    &game.options,
                    &game.seed,
                    &(game.rules_version as i32),
                ],
            )
            .await?;
        for token in &game.tokens {
            let role = match token.role {
                TokenRole::Umpire => "umpire",
                TokenRole::Seat => "seat",
            };
            transaction
                .execute(
                    "INSERT INTO tokens (game_id, token_hash, role, seat) VALUES ($1, $2, $3, $4)",
                    &[&game.game_id, &token.token_hash, &role, &token.seat],
                )
                .await?;
        }
        let stored = insert_events(
            &transaction,
            game.game_id,
            0,
            GENESIS_HASH,
            game.setup_events,
        )
        .await?;
        transaction.commit().await?;
        Ok(stored)
    }

    pub async fn game(&self, game_id: Uuid) -> Result<GameRecord, StoreError> {
        let client = self.pool.get().await?;
        let statement = client
            .prepare_cached(
                "SELECT game_id, game, options, seed, rules_version, created_at
                 FROM games WHERE game_id = $1",
            )
            .await?;
        let row = client
            .query_opt(&statement, &[&game_id])
            .await?
            .ok_or(StoreError::GameNotFound(game_id))?;
        Ok(GameRecord {
            game_id: row.get(0),
            game: row.get(1),
            options: row.get(2),
            seed: row.get(3),
            rules_version: u32::try_from(row.get::<_, i32>(4)).unwrap_or(0),
            created_at: row.get(5),
        })
    }

    /// Events with `after < seq <= up_to`, in order, at most `limit`.
    pub async fn read_events(
        &self,
        game_id: Uuid,
        after: u64,
        up_to: Option<u64>,
        limit: Option<u64>,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let client = self.pool.get().await?;
        let up_to = up_to.map(|v| v as i64).unwrap_or(i64::MAX);
        let limit = limit.map(|v| v as i64).unwrap_or(i64::MAX);
        let statement = client.prepare_cached(READ_EVENTS).await?;
        let rows = client
            .query(&statement, &[&game_id, &(after as i64), &up_to, &limit])
            .await?;
        Ok(rows.iter().map(event_from_row).collect())
    }

    /// The number of events in the stream.
    pub async fn version(&self, game_id: Uuid) -> Result<u64, StoreError> {
        let client = self.pool.get().await?;
        let statement = client
            .prepare_cached("SELECT COALESCE(max(seq), 0) FROM events WHERE game_id = $1")
            .await?;
        let row = client.query_one(&statement, &[&game_id]).await?;
        Ok(version_of(row.get(0)))
    }

    /// The number of events and the hash of the last one (the genesis hash
    /// for an empty stream).
    pub async fn head(&self, game_id: Uuid) -> Result<(u64, String), StoreError> {
        let client = self.pool.get().await?;
        let statement = client
            .prepare_cached(
                "SELECT seq, hash FROM events WHERE game_id = $1 ORDER BY seq DESC LIMIT 1",
            )
            .await?;
        Ok(match client.query_opt(&statement, &[&game_id]).await? {
            Some(row) => (version_of(row.get(0)), row.get(1)),
            None => (0, GENESIS_HASH.to_string()),
        })
    }

    /// Appends `events` after exactly `expected_version` events, atomically.
    /// A lost race is a [`StoreError::Conflict`], never a gap or a duplicate:
    /// the `(game_id, seq)` primary key decides the winner.
    pub async fn append(
        &self,
        game_id: Uuid,
        expected_version: u64,
        events: Vec<NewEvent>,
        idempotency: Option<&IdempotentRequest>,
    ) -> Result<AppendOutcome, StoreError> {
        let (actual, head_hash) = self.head(game_id).await?;
        if actual != expected_version {
            return Err(StoreError::Conflict {
                expected: expected_version,
                actual,
            });
        }
        self.append_at_head(game_id, expected_version, &head_hash, events, idempotency)
            .await
    }

    /// The hot path: appends after a head the caller has just read
    /// (`expected_version` events, the last with hash `head_hash`) in one
    /// statement and one round trip, shared with other games' appends that
    /// arrive meanwhile (see `group_commit`). If anyone appended in between,
    /// the `(game_id, seq)` key refuses it and the answer is a conflict; a
    /// stale head can therefore never produce a wrong hash link.
    pub async fn append_at_head(
        &self,
        game_id: Uuid,
        expected_version: u64,
        head_hash: &str,
        events: Vec<NewEvent>,
        idempotency: Option<&IdempotentRequest>,
    ) -> Result<AppendOutcome, StoreError> {
        let (recorded_at, stored) = link_events(game_id, expected_version, head_hash, events);
        if stored.is_empty() && idempotency.is_none() {
            return Ok(AppendOutcome::Appended(stored));
        }
        let linked = LinkedAppend {
            game_id,
            expected_version,
            recorded_at,
            events: stored,
            idempotency: idempotency.cloned(),
        };
        match self.group.write(&self.pool, linked).await {
            Some((GroupOutcome::Written, linked)) => Ok(AppendOutcome::Appended(linked.events)),
            Some((GroupOutcome::RunAlone, linked)) => self.append_alone(linked).await,
            Some((GroupOutcome::Failed(error), _)) => Err(error),
            None => Err(StoreError::Unavailable(
                "the append's writer stopped before answering".into(),
            )),
        }
    }

    /// Writes one append in a statement of its own and says why it was
    /// refused, if it was.
    async fn append_alone(&self, linked: LinkedAppend) -> Result<AppendOutcome, StoreError> {
        let game_id = linked.game_id;
        let client = self.pool.get().await?;
        match insert_appends(&client, &[&linked]).await {
            Ok(inserted) if inserted == linked.events.len() as u64 => {
                Ok(AppendOutcome::Appended(linked.events))
            }
            // Nothing inserted: there is no such game (see group_commit::INSERT_APPENDS).
            Ok(_) => Err(StoreError::GameNotFound(game_id)),
            Err(error) if error.code() == Some(&SqlState::FOREIGN_KEY_VIOLATION) => {
                Err(StoreError::GameNotFound(game_id))
            }
            Err(error) if error.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                let constraint = error
                    .as_db_error()
                    .and_then(|e| e.constraint())
                    .unwrap_or_default()
                    .to_string();
                drop(client);
                if constraint.starts_with("idempotency_keys") {
                    let request = linked
                        .idempotency
                        .as_ref()
                        .expect("only an idempotent append inserts a key");
                    return match self.idempotent_response(game_id, &request.key).await? {
                        Some((hash, response)) if hash == request.request_hash => {
                            Ok(AppendOutcome::Replayed(response))
                        }
                        _ => Err(StoreError::IdempotencyKeyReused),
                    };
                }
                Err(StoreError::Conflict {
                    expected: linked.expected_version,
                    actual: self.version(game_id).await?,
                })
            }
            Err(error) => Err(error.into()),
        }
    }

    /// The stored request hash and response for an idempotency key.
    pub async fn idempotent_response(
        &self,
        game_id: Uuid,
        key: &str,
    ) -> Result<Option<(String, Value)>, StoreError> {
        let client = self.pool.get().await?;
        let statement = client
            .prepare_cached(
                "SELECT request_hash, response FROM idempotency_keys
                 WHERE game_id = $1 AND idempotency_key = $2",
            )
            .await?;
        let row = client.query_opt(&statement, &[&game_id, &key]).await?;
        Ok(row.map(|row| (row.get(0), row.get(1))))
    }

    /// The role and seat a token grants in a game, if any.
    pub async fn token_role(
        &self,
        game_id: Uuid,
        token: &str,
    ) -> Result<Option<(TokenRole, Option<String>)>, StoreError> {
        let client = self.pool.get().await?;
        let statement = client
            .prepare_cached("SELECT role, seat FROM tokens WHERE game_id = $1 AND token_hash = $2")
            .await?;
        let row = client
            .query_opt(&statement, &[&game_id, &hash_token(token)])
            .await?;
        Ok(row.map(|row| {
            let role = if row.get::<_, String>(0) == "umpire" {
                TokenRole::Umpire
            } else {
                TokenRole::Seat
            };
            (role, row.get(1))
        }))
    }

    /// Keeps a refused action for the audit, bounded: a refusal identical to
    /// one already kept (game, actor, version, action, code) raises that
    /// row's `repeats`; a new distinct one is stored while fewer than
    /// [`REFUSALS_KEPT_PER_VERSION`] are kept for its (game, actor, version),
    /// and is otherwise only counted on the overflow row. One statement; two
    /// distinct refusals racing at the cap may both be kept, so the cap can be
    /// passed by at most the number of concurrent refusals.
    pub async fn record_rejection(
        &self,
        game_id: Uuid,
        rejection: &Rejection,
    ) -> Result<(), StoreError> {
        let client = self.pool.get().await?;
        let statement = client
            .prepare_cached(
                "WITH kept AS (
                   SELECT count(*) FILTER (WHERE code <> $11) < $10
                          OR bool_or(code = $6 AND refusal_action_digest(action) = refusal_action_digest($5))
                          AS room
                   FROM rejected_actions WHERE game_id = $1 AND actor = $4 AND at_version = $3
                 )
                 INSERT INTO rejected_actions
                   (game_id, rejection_id, at_version, actor, action, code, message, rule,
                    rules_version, repeats)
                 SELECT $1, $2, $3, $4,
                        CASE WHEN kept.room THEN $5 ELSE 'null'::jsonb END,
                        CASE WHEN kept.room THEN $6 ELSE $11 END,
                        CASE WHEN kept.room THEN $7 ELSE $12 END,
                        CASE WHEN kept.room THEN $8 END,
                        $9, 1
                 FROM kept
                 ON CONFLICT (game_id, actor, at_version, code, refusal_action_digest(action))
                 DO UPDATE SET repeats = rejected_actions.repeats + 1",
            )
            .await?;
        client
            .execute(
                &statement,
                &[
                    &game_id,
                    &Uuid::new_v4(),
                    &(rejection.at_version as i64),
                    &rejection.actor,
                    &rejection.action,
                    &rejection.code,
                    // A violation's message may quote what the client sent;
                    // PostgreSQL text cannot hold U+0000.
                    &rejection.message.replace('\0', "\u{FFFD}"),
                    &rejection.rule,
                    &(rejection.rules_version as i32),
                    &(REFUSALS_KEPT_PER_VERSION as i64),
                    &REFUSALS_NOT_KEPT_CODE,
                    &refusals_not_kept_message(),
                ],
            )
            .await?;
        Ok(())
    }

    /// Every rejection of a game, in audit order (by version, time, id).
    /// Unbounded: what answers a request reads [`EventStore::rejections_page`].
    pub async fn rejections(&self, game_id: Uuid) -> Result<Vec<Rejection>, StoreError> {
        let mut rejections = Vec::new();
        let mut after = None;
        loop {
            let page = self
                .rejections_page(game_id, after.as_ref(), 10_000)
                .await?;
            rejections.extend(page.rejections);
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(rejections),
            }
        }
    }

    /// Up to `limit` rejections of a game after `after` (from the first when
    /// `None`), in audit order. Keyset paging rather than a cursor: no
    /// connection or transaction is held between pages, so a client reading
    /// a long answer slowly holds nothing in the database.
    pub async fn rejections_page(
        &self,
        game_id: Uuid,
        after: Option<&RejectionCursor>,
        limit: usize,
    ) -> Result<RejectionPage, StoreError> {
        let client = self.pool.get().await?;
        let limit = i64::try_from(limit.max(1)).unwrap_or(i64::MAX);
        let rows = match after {
            None => {
                let statement = client
                    .prepare_cached(&format!(
                        "{REJECTIONS_PAGE} WHERE game_id = $1 {REJECTIONS_ORDER} LIMIT $2"
                    ))
                    .await?;
                client.query(&statement, &[&game_id, &limit]).await?
            }
            Some(cursor) => {
                let statement = client
                    .prepare_cached(&format!(
                        "{REJECTIONS_PAGE} WHERE game_id = $1
                           AND (at_version, recorded_at, rejection_id) > ($2, $3, $4)
                         {REJECTIONS_ORDER} LIMIT $5"
                    ))
                    .await?;
                client
                    .query(
                        &statement,
                        &[
                            &game_id,
                            &cursor.at_version,
                            &cursor.recorded_at,
                            &cursor.rejection_id,
                            &limit,
                        ],
                    )
                    .await?
            }
        };
        // A short page is the last one.
        let next = match rows.last() {
            Some(last) if rows.len() as i64 == limit => Some(RejectionCursor {
                at_version: last.get(0),
                recorded_at: last.get(7),
                rejection_id: last.get(8),
            }),
            _ => None,
        };
        Ok(RejectionPage {
            rejections: rows.iter().map(rejection_from_row).collect(),
            next,
        })
    }

    /// A whole game: its record and every event.
    pub async fn archive(&self, game_id: Uuid) -> Result<Archive, StoreError> {
        let record = self.game(game_id).await?;
        let events = self.read_events(game_id, 0, None, None).await?;
        Ok(Archive { record, events })
    }
}

/// Computes the stored form of `events` appended after `expected_version`
/// whose last hash is `prev_hash`: sequence numbers, times and hash links.
fn link_events(
    game_id: Uuid,
    expected_version: u64,
    prev_hash: &str,
    events: Vec<NewEvent>,
) -> (DateTime<Utc>, Vec<StoredEvent>) {
    let game_id_text = game_id.to_string();
    let recorded_at = now();
    let recorded_at_text = format_time(&recorded_at);
    let mut prev_hash = prev_hash.to_string();
    let mut stored = Vec::with_capacity(events.len());
    for (offset, event) in events.into_iter().enumerate() {
        let mut record = StoredEvent {
            seq: expected_version + offset as u64 + 1,
            event_type: event.event_type,
            payload: event.payload,
            actor: event.actor,
            action: event.action,
            decided_at: expected_version,
            rules_version: event.rules_version,
            recorded_at: recorded_at_text.clone(),
            prev_hash,
            hash: String::new(),
        };
        record.hash = record.chain_link(&game_id_text).hash();
        prev_hash = record.hash.clone();
        stored.push(record);
    }
    (recorded_at, stored)
}

async fn insert_events(
    transaction: &deadpool_postgres::Transaction<'_>,
    game_id: Uuid,
    expected_version: u64,
    prev_hash: &str,
    events: Vec<NewEvent>,
) -> Result<Vec<StoredEvent>, StoreError> {
    let (recorded_at, stored) = link_events(game_id, expected_version, prev_hash, events);
    if stored.is_empty() {
        return Ok(stored);
    }
    let linked = LinkedAppend {
        game_id,
        expected_version,
        recorded_at,
        events: stored,
        idempotency: None,
    };
    let inserted = insert_appends(transaction, &[&linked]).await?;
    if inserted != linked.events.len() as u64 {
        return Err(StoreError::GameNotFound(game_id));
    }
    Ok(linked.events)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stored hashes cover `recorded_at` as text: the format must never
    /// change, whatever formats it.
    #[test]
    fn times_format_as_they_always_have() {
        let times = [
            "2026-11-23T16:43:22.123456Z",
            "2026-11-23T16:43:22Z",
            "1999-12-31T23:59:59.999999Z",
            "2000-02-29T00:00:00.000001Z",
            "2026-01-01T00:00:00.1Z",
        ];
        for text in times {
            let time: DateTime<Utc> = text.parse().expect("a valid time");
            assert_eq!(
                format_time(&time),
                time.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string(),
                "{text}"
            );
        }
        let time: DateTime<Utc> = "2026-11-23T16:43:22Z".parse().expect("valid");
        assert_eq!(format_time(&time), "2026-11-23T16:43:22.000000Z");
    }
}

//! The event store API the service calls: create a game, append with an
//! expected version, read a stream, tokens, idempotency and rejections.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::Value;
use tokio_postgres::error::SqlState;
use umpire_domain::record::format_recorded_at;
use umpire_domain::record::RecordedRejection;
use umpire_domain::{Actor, RecordedEvent};
use uuid::Uuid;

use crate::append::{
    link_events, GameResult, Head, IdempotentAnswer, IdempotentRequest, LinkedAppend, NewEvent,
};
use crate::group_commit::{
    insert_appends, BatchObserver, GroupCommit, GroupCommitLimits, GroupOutcome,
};
use crate::{Pool, StoreError};

#[derive(Debug, Clone)]
pub struct NewToken {
    /// SHA-256 of the token ([`hash_token`]): the token itself is never stored.
    pub token_hash: String,
    /// Whom the token lets its holder act as (and see as): a seat, with
    /// that seat's secrets, or the umpire, who sees everything.
    pub grant: Actor<String>,
}

/// How the `tokens` table keeps whom a token lets act: a role, and the
/// seat for a seat's token.
pub(crate) fn token_role(grant: &Actor<String>) -> (&'static str, Option<&str>) {
    match grant {
        Actor::Umpire => ("umpire", None),
        Actor::Seat(seat) => ("seat", Some(seat.as_str())),
    }
}

/// Inserts a game's tokens inside the transaction creating or importing it.
pub(crate) async fn insert_tokens(
    transaction: &deadpool_postgres::Transaction<'_>,
    game_id: Uuid,
    tokens: &[NewToken],
) -> Result<(), StoreError> {
    for token in tokens {
        let (role, seat) = token_role(&token.grant);
        transaction
            .execute(
                "INSERT INTO tokens (game_id, token_hash, role, seat) VALUES ($1, $2, $3, $4)",
                &[&game_id, &token.token_hash, &role, &seat],
            )
            .await?;
    }
    Ok(())
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
    pub events: Vec<RecordedEvent>,
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
    pub rejections: Vec<RecordedRejection>,
    pub next: Option<RejectionCursor>,
}

/// At most this many distinct refusals are kept per (game, actor, version);
/// with games of bounded length and seats, a game's stored refusals are
/// bounded by its version × (seats + umpire) × (this + 1 overflow row).
pub const REFUSALS_KEPT_PER_VERSION: u64 = 32;

/// At most this many refusal rows (kept ones and overflow rows alike) are
/// stored per game, and an import may bring no more. An audit writes every
/// row with the state before it as each viewer saw it, so this is what bounds
/// an audit's size and time: at most this many entries, each a refusal of at
/// most 64 KiB of action and 64 KiB of message plus the views of one state.
/// Once a game holds this many, a refusal raises the count of its identical
/// row, or else of its (actor, version) overflow row, and is otherwise not
/// stored (its sender is still answered, and the metrics count it).
pub const REFUSALS_KEPT_PER_GAME: u64 = 10_000;

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

/// SHA-256 of a token, hex: what is stored and looked up.
pub fn hash_token(token: &str) -> String {
    umpire_domain::chain::sha256_hex(token.as_bytes())
}

/// Whom a token lets act, and the generation of its seat's tokens it
/// belongs to: the version of the seat's reissue that made it (0 before
/// any), so it stays valid while the log holds no later reissue of the seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenGrant {
    pub actor: Actor<String>,
    pub generation: u64,
}

/// The columns of a rejection, then the columns of its place in audit order.
const REJECTIONS_PAGE: &str = "
    SELECT at_version, actor, action, code, message, rule, rules_version, recorded_at, rejection_id,
           repeats
    FROM rejected_actions";

/// Audit order: by the version refused at, then by time; the id breaks ties
/// (imported rejections may share a time), so every read gives one order.
const REJECTIONS_ORDER: &str = "ORDER BY at_version, recorded_at, rejection_id";

fn rejection_from_row(row: &tokio_postgres::Row) -> RecordedRejection {
    RecordedRejection {
        at_version: version_of(row.get(0)),
        actor: row.get(1),
        action: row.get(2),
        code: row.get(3),
        message: row.get(4),
        rule: row.get(5),
        rules_version: u32::try_from(row.get::<_, i32>(6)).unwrap_or(0),
        recorded_at: format_recorded_at(&row.get(7)),
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

fn event_from_row(row: &tokio_postgres::Row) -> RecordedEvent {
    let recorded_at: DateTime<Utc> = row.get(6);
    let action: Option<Value> = row.get(4);
    RecordedEvent {
        seq: version_of(row.get(0)),
        event_type: row.get(1),
        payload: row.get(2),
        actor: row.get(3),
        action: Arc::new(action.unwrap_or(Value::Null)),
        decided_at: version_of(row.get(9)),
        rules_version: u32::try_from(row.get::<_, i32>(5)).unwrap_or(0),
        recorded_at: format_recorded_at(&recorded_at),
        prev_hash: row.get(7),
        hash: row.get(8),
        encoded: Default::default(),
    }
}

/// The store, over a pool. Cheap to clone.
#[derive(Clone)]
pub struct EventStore {
    pool: Pool,
    /// Concurrent appends share statements (see `group_commit`).
    group: GroupCommit,
}

/// The outcome of a written append.
fn appended(head: &Head, linked: LinkedAppend) -> AppendOutcome {
    AppendOutcome::Appended {
        head: head.after(&linked.events),
        events: linked.events,
    }
}

/// What an append did.
#[derive(Debug, Clone)]
pub enum AppendOutcome {
    /// Written: the events as recorded, and the log's new head.
    Appended {
        events: Vec<RecordedEvent>,
        head: Head,
    },
    /// The idempotency key was already used for the same request: here is the
    /// answer stored with it; nothing new was written.
    Replayed(IdempotentAnswer),
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
    pub async fn create_game(&self, game: NewGame) -> Result<Vec<RecordedEvent>, StoreError> {
        self.create_game_inviting(game, &[]).await
    }

    /// Creates a game with its tokens, its seats' invitations and its setup
    /// events in one transaction.
    pub async fn create_game_inviting(
        &self,
        game: NewGame,
        invitations: &[crate::NewInvitation],
    ) -> Result<Vec<RecordedEvent>, StoreError> {
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
        insert_tokens(&transaction, game.game_id, &game.tokens).await?;
        crate::invitation_rows::insert_invitations(&transaction, game.game_id, invitations).await?;
        let stored = insert_events(&transaction, game.game_id, game.setup_events).await?;
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
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        let client = self.pool.get().await?;
        let up_to = up_to.map(|v| v as i64).unwrap_or(i64::MAX);
        let limit = limit.map(|v| v as i64).unwrap_or(i64::MAX);
        let statement = client.prepare_cached(READ_EVENTS).await?;
        let rows = client
            .query(&statement, &[&game_id, &(after as i64), &up_to, &limit])
            .await?;
        Ok(rows.iter().map(event_from_row).collect())
    }

    /// The events after `head`, and the log's head after them: how a fold
    /// is brought up to date, and the only way (with [`Self::append_at_head`])
    /// to get a head to append at.
    pub async fn read_after(&self, head: &Head) -> Result<(Vec<RecordedEvent>, Head), StoreError> {
        let events = self
            .read_events(head.game_id(), head.version(), None, None)
            .await?;
        let next = head.after(&events);
        Ok((events, next))
    }

    /// The number of events in the stream (tests' shortcut).
    #[cfg(feature = "testing")]
    pub async fn version(&self, game_id: Uuid) -> Result<u64, StoreError> {
        self.stored_version(game_id).await
    }

    /// The number of events in the stream.
    async fn stored_version(&self, game_id: Uuid) -> Result<u64, StoreError> {
        self.events_held(game_id).await
    }

    /// The log's head as stored now (tests' shortcut: the service keeps the
    /// head of its fold instead of asking).
    #[cfg(feature = "testing")]
    pub async fn head(&self, game_id: Uuid) -> Result<Head, StoreError> {
        Ok(self.read_after(&Head::start(game_id)).await?.1)
    }

    /// The head the log had at `version` (tests' way to hold a stale head).
    #[cfg(feature = "testing")]
    pub async fn head_at(&self, game_id: Uuid, version: u64) -> Result<Head, StoreError> {
        let events = self.read_events(game_id, 0, Some(version), None).await?;
        Ok(Head::start(game_id).after(&events))
    }

    /// Appends after `head` in one statement and one round trip, shared with
    /// other games' appends that arrive meanwhile (see `group_commit`). If
    /// anyone appended since `head` was read, the `(game_id, seq)` key refuses
    /// it and the answer is a [`StoreError::Conflict`]: a head that is behind
    /// can never produce a duplicate, and since only the store makes heads
    /// (see [`Head`]), no caller can produce a gap or a wrong hash link.
    pub async fn append_at_head(
        &self,
        head: &Head,
        events: Vec<NewEvent>,
        idempotency: Option<&IdempotentRequest>,
    ) -> Result<AppendOutcome, StoreError> {
        self.append_at_head_with_result(head, events, idempotency, None)
            .await
    }

    /// [`Self::append_at_head`], for events that may end the game: `result`
    /// is how it ended when they do (the rules say so, not the store), kept
    /// in `game_results` by the same statement, so that a committed end is
    /// always listed as finished.
    pub async fn append_at_head_with_result(
        &self,
        head: &Head,
        events: Vec<NewEvent>,
        idempotency: Option<&IdempotentRequest>,
        result: Option<&GameResult>,
    ) -> Result<AppendOutcome, StoreError> {
        let mut linked = link_events(head, events, idempotency.cloned());
        linked.result = result.cloned();
        if linked.events.is_empty() && idempotency.is_none() {
            return Ok(AppendOutcome::Appended {
                events: Vec::new(),
                head: head.clone(),
            });
        }
        match self.group.write(&self.pool, linked).await {
            Some((GroupOutcome::Written, linked)) => Ok(appended(head, linked)),
            Some((GroupOutcome::RunAlone, linked)) => self.append_alone(head, linked).await,
            Some((GroupOutcome::Failed(error), _)) => Err(error),
            None => Err(StoreError::Unavailable(
                "the append's writer stopped before answering".into(),
            )),
        }
    }

    /// Writes one append in a statement of its own and says why it was
    /// refused, if it was.
    async fn append_alone(
        &self,
        head: &Head,
        linked: LinkedAppend,
    ) -> Result<AppendOutcome, StoreError> {
        let game_id = linked.game_id;
        let client = self.pool.get().await?;
        match insert_appends(&client, &[&linked]).await {
            Ok(inserted) if inserted == linked.events.len() as u64 => Ok(appended(head, linked)),
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
                    return match self
                        .idempotent_response(game_id, &request.actor, &request.key)
                        .await?
                    {
                        Some((hash, answer)) if hash == request.request_hash => {
                            Ok(AppendOutcome::Replayed(answer))
                        }
                        _ => Err(StoreError::IdempotencyKeyReused),
                    };
                }
                Err(StoreError::Conflict {
                    expected: linked.expected_version,
                    actual: self.stored_version(game_id).await?,
                })
            }
            Err(error) => Err(error.into()),
        }
    }

    /// The stored request hash and answer for `actor`'s idempotency key (an
    /// actor never sees another's keys, nor is refused for using one).
    pub async fn idempotent_response(
        &self,
        game_id: Uuid,
        actor: &str,
        key: &str,
    ) -> Result<Option<(String, IdempotentAnswer)>, StoreError> {
        let client = self.pool.get().await?;
        let statement = client
            .prepare_cached(
                "SELECT request_hash, response FROM idempotency_keys
                 WHERE game_id = $1 AND actor = $2 AND idempotency_key = $3",
            )
            .await?;
        let Some(row) = client
            .query_opt(&statement, &[&game_id, &actor, &key])
            .await?
        else {
            return Ok(None);
        };
        let answer: Value = row.get(1);
        let answer = serde_json::from_value(answer).map_err(|e| {
            StoreError::Corrupt(format!(
                "the answer stored for an idempotency key of game {game_id}: {e}"
            ))
        })?;
        Ok(Some((row.get(0), answer)))
    }

    /// Whom a token (by its hash, [`hash_token`]) lets act in a game, if
    /// anyone: a seat's token only while its generation is the seat's
    /// newest (a reissue revokes the earlier ones;
    /// `migrations/V9__invitations.sql`). One query, on the two tables' keys.
    pub async fn token_grant(
        &self,
        game_id: Uuid,
        token_hash: &str,
    ) -> Result<Option<TokenGrant>, StoreError> {
        let client = self.pool.get().await?;
        let statement = client
            .prepare_cached(
                "SELECT t.role, t.seat, t.generation FROM tokens t
                 WHERE t.game_id = $1 AND t.token_hash = $2
                   AND (t.seat IS NULL OR t.generation >= COALESCE(
                     (SELECT max(g.generation) FROM seat_generations g
                      WHERE g.game_id = $1 AND g.seat = t.seat), 0))",
            )
            .await?;
        let Some(row) = client
            .query_opt(&statement, &[&game_id, &token_hash])
            .await?
        else {
            return Ok(None);
        };
        let (role, seat, generation): (String, Option<String>, i64) =
            (row.get(0), row.get(1), row.get(2));
        let actor = match (role.as_str(), seat) {
            ("umpire", None) => Actor::Umpire,
            ("seat", Some(seat)) => Actor::Seat(seat),
            (role, seat) => {
                return Err(StoreError::Corrupt(format!(
                    "a token of game {game_id} has role `{role}` and seat {seat:?}"
                )))
            }
        };
        Ok(Some(TokenGrant {
            actor,
            generation: u64::try_from(generation).map_err(|_| {
                StoreError::Corrupt(format!(
                    "a token of game {game_id} has generation {generation}"
                ))
            })?,
        }))
    }

    /// Keeps a refused action for the audit, bounded: a refusal identical to
    /// one already kept (game, actor, version, action, code) raises that
    /// row's `repeats`; a new distinct one is stored while fewer than
    /// [`REFUSALS_KEPT_PER_VERSION`] are kept for its (game, actor, version),
    /// and is otherwise only counted on the overflow row. No row is added to
    /// a game that holds [`REFUSALS_KEPT_PER_GAME`]: its refusals raise an
    /// existing row's count or are not kept. One statement; two refusals
    /// racing at a cap may both be kept, so a cap can be passed by at most
    /// the number of concurrent refusals (submissions to one game take turns
    /// within an instance, so only other instances can race).
    pub async fn record_rejection(
        &self,
        game_id: Uuid,
        rejection: &RecordedRejection,
    ) -> Result<(), StoreError> {
        let client = self.pool.get().await?;
        let statement = client
            .prepare_cached(
                "WITH game AS (
                   -- Counted no further than the cap: bounded work per refusal.
                   SELECT count(*) >= $13 AS is_full
                   FROM (SELECT 1 FROM rejected_actions WHERE game_id = $1 LIMIT $13) AS kept_rows
                 ), kept AS (
                   SELECT count(*) FILTER (WHERE code <> $11) < $10
                          OR bool_or(code = $6 AND refusal_action_digest(action) = refusal_action_digest($5))
                          AS room
                   FROM rejected_actions WHERE game_id = $1 AND actor = $4 AND at_version = $3
                 ), counted_in_full_game AS (
                   -- The identical row if kept, else the overflow row of
                   -- this (actor, version), if there is one.
                   UPDATE rejected_actions SET repeats = repeats + 1
                   WHERE (SELECT is_full FROM game) AND game_id = $1 AND rejection_id = (
                     SELECT rejection_id FROM rejected_actions
                     WHERE game_id = $1 AND actor = $4 AND at_version = $3
                       AND (code = $11 OR code = $6
                            AND refusal_action_digest(action) = refusal_action_digest($5))
                     ORDER BY code = $11
                     LIMIT 1
                   )
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
                 FROM kept, game
                 WHERE NOT game.is_full
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
                    &(REFUSALS_KEPT_PER_GAME as i64),
                ],
            )
            .await?;
        Ok(())
    }

    /// Every rejection of a game, in audit order (by version, time, id).
    /// Unbounded: what answers a request reads [`EventStore::rejections_page`].
    pub async fn rejections(&self, game_id: Uuid) -> Result<Vec<RecordedRejection>, StoreError> {
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

/// Inserts the setup events of a game being created, inside its transaction.
async fn insert_events(
    transaction: &deadpool_postgres::Transaction<'_>,
    game_id: Uuid,
    events: Vec<NewEvent>,
) -> Result<Vec<RecordedEvent>, StoreError> {
    let linked = link_events(&Head::start(game_id), events, None);
    if linked.events.is_empty() {
        return Ok(linked.events);
    }
    let inserted = insert_appends(transaction, &[&linked]).await?;
    if inserted != linked.events.len() as u64 {
        return Err(StoreError::GameNotFound(game_id));
    }
    Ok(linked.events)
}

//! Group commit: appends that arrive while others are being written are
//! written together, in one statement (so one transaction, one WAL flush and
//! one round trip) instead of one each.
//!
//! Nothing waits for a batch to fill: an append is written at once when a
//! writer is free, and only appends that arrive while every writer is busy
//! share the next statement. So one client sees the latency of a lone insert,
//! and many clients share commits instead of queueing for them.
//!
//! A batch is atomic like a lone append, and it is only ever a shortcut: when
//! its statement is refused as a whole (a lost race on one game's sequence
//! number, an unknown game, a reused idempotency key), nothing of it was
//! written and every append in it is told to run alone, where each refusal
//! is classified for the one append it belongs to. An outage is not retried:
//! whether a statement whose connection broke committed is unknown, and a
//! lone retry could turn a written append into a reported conflict.

use std::collections::VecDeque;
use std::sync::{Arc, LazyLock, Weak};
use std::time::{Duration, Instant};

use bytes::{BufMut, BytesMut};
use chrono::{DateTime, Utc};
use deadpool_postgres::StatementCache;
use parking_lot::Mutex;
use postgres_protocol::types::ArrayDimension;
use tokio::sync::oneshot;
use tokio_postgres::types::{to_sql_checked, IsNull, Kind, ToSql, Type};
use tokio_postgres::Statement;
use umpire_domain::chain::CanonicalJson;
use umpire_domain::RecordedEvent;
use uuid::Uuid;

use crate::append::LinkedAppend;
use crate::{Pool, StoreError};

/// What happened to an append sent to the group.
#[derive(Debug)]
pub(crate) enum GroupOutcome {
    /// Written, with every event.
    Written,
    /// The batch it was in was refused; nothing of it was written. Run it
    /// alone to learn why (or to write it, if another append was to blame).
    RunAlone,
    /// The database could not be reached or the write's outcome is unknown.
    Failed(StoreError),
}

/// How many batches may be written at once, and how big one may get.
#[derive(Debug, Clone, Copy)]
pub struct GroupCommitLimits {
    /// Concurrent writers, each holding one pooled connection while writing.
    pub writers: usize,
    /// Appends per statement, at most.
    pub batch: usize,
}

impl Default for GroupCommitLimits {
    fn default() -> Self {
        GroupCommitLimits {
            writers: 2,
            batch: 64,
        }
    }
}

/// Called with the number of appends in a written batch and how long its
/// statement took (from asking the pool for a connection to the answer).
pub type BatchObserver = dyn Fn(usize, Duration) + Send + Sync;

struct Waiting {
    append: LinkedAppend,
    /// Hands the append back with its outcome, so nothing is copied.
    reply: oneshot::Sender<(GroupOutcome, LinkedAppend)>,
}

#[derive(Default)]
struct Queue {
    waiting: VecDeque<Waiting>,
    writers: usize,
}

/// The appends waiting to be written and the writers writing them. Cheap to
/// clone; clones share the queue.
#[derive(Clone)]
pub(crate) struct GroupCommit {
    queue: Arc<Mutex<Queue>>,
    limits: GroupCommitLimits,
    /// Told the size and duration of every batch written, for the metrics.
    observer: Option<Arc<BatchObserver>>,
    prepared: Arc<PreparedAppends>,
}

/// The append statements as prepared on each pooled connection a writer has
/// used. The pool's own cache finds a statement by hashing its text, every
/// batch; this finds it by the connection and the batch's [`AppendShape`].
/// A connection is known by its statement cache's address, and the weak
/// reference kept to that cache keeps the address from being given to
/// another connection's. At most one entry per live connection and shape:
/// entries of closed ones go when another is added. (Prepared statements
/// outlive a connection's return to the pool: it is recycled without
/// `DISCARD`.)
#[derive(Default)]
struct PreparedAppends(Mutex<Vec<(Weak<StatementCache>, AppendShape, Statement)>>);

impl PreparedAppends {
    fn known_on(
        &self,
        client: &deadpool_postgres::Client,
        shape: AppendShape,
    ) -> Option<Statement> {
        let cache = Arc::as_ptr(&client.statement_cache);
        self.0
            .lock()
            .iter()
            .find(|(seen, known, _)| *known == shape && std::ptr::eq(seen.as_ptr(), cache))
            .map(|(_, _, statement)| statement.clone())
    }

    async fn on(
        &self,
        client: &deadpool_postgres::Client,
        shape: AppendShape,
    ) -> Result<Statement, tokio_postgres::Error> {
        if let Some(statement) = self.known_on(client, shape) {
            return Ok(statement);
        }
        let statement = client.prepare_cached(shape.sql()).await?;
        let mut known = self.0.lock();
        known.retain(|(seen, _, _)| seen.strong_count() > 0);
        known.push((
            Arc::downgrade(&client.statement_cache),
            shape,
            statement.clone(),
        ));
        Ok(statement)
    }
}

impl GroupCommit {
    pub fn new(limits: GroupCommitLimits) -> Self {
        GroupCommit {
            queue: Arc::default(),
            limits: GroupCommitLimits {
                writers: limits.writers.max(1),
                batch: limits.batch.max(1),
            },
            observer: None,
            prepared: Arc::default(),
        }
    }

    pub fn observe_batches(&mut self, observer: Arc<BatchObserver>) {
        self.observer = Some(observer);
    }

    /// Queues `append` and waits until a writer has written it or refused
    /// it. The write itself runs in a spawned task, so a caller that goes
    /// away (a client disconnecting) never cuts a batch short for the others.
    /// Returns the append with the outcome, or `None` if its writer died.
    pub async fn write(
        &self,
        pool: &Pool,
        append: LinkedAppend,
    ) -> Option<(GroupOutcome, LinkedAppend)> {
        let (reply, outcome) = oneshot::channel();
        let start_writer = {
            let mut queue = self.queue.lock();
            queue.waiting.push_back(Waiting { append, reply });
            let start = queue.writers < self.limits.writers;
            if start {
                queue.writers += 1;
            }
            start
        };
        if start_writer {
            // Boxed: the writer's future holds a whole statement's state,
            // and spawning moves a future by value several times over.
            tokio::spawn(Box::pin(self.clone().drain(pool.clone())));
        }
        outcome.await.ok()
    }

    /// Writes batches until the queue is empty, then retires.
    async fn drain(self, pool: Pool) {
        let mut retire = Retire {
            group: self.clone(),
            armed: true,
        };
        loop {
            let batch = {
                let mut queue = self.queue.lock();
                let batch = take_batch(&mut queue.waiting, self.limits.batch);
                if batch.is_empty() {
                    // Retire under the lock, so an append queued after this
                    // check sees a free writer slot and starts one.
                    queue.writers -= 1;
                    retire.armed = false;
                    return;
                }
                batch
            };
            let started = Instant::now();
            let written = write_batch(&pool, &self.prepared, &batch).await;
            if let Some(observer) = &self.observer {
                observer(batch.len(), started.elapsed());
            }
            for Waiting { append, reply } in batch {
                let outcome = match &written {
                    Ok(()) => GroupOutcome::Written,
                    Err(BatchError::Refused) => GroupOutcome::RunAlone,
                    Err(BatchError::Failed(message)) => {
                        GroupOutcome::Failed(StoreError::Unavailable(message.clone()))
                    }
                };
                // The caller may have gone away; its append's fate is
                // still decided (written or not) and nothing else waits.
                let _ = reply.send((outcome, append));
            }
        }
    }
}

/// Frees a writer slot if a writer task ends by panicking, so later appends
/// start a new one instead of waiting forever.
struct Retire {
    group: GroupCommit,
    armed: bool,
}

impl Drop for Retire {
    fn drop(&mut self) {
        if self.armed {
            self.group.queue.lock().writers -= 1;
        }
    }
}

/// The next batch: queued appends in arrival order, at most one per game (two
/// appends to one game at once are a race one of them loses; writing them
/// apart keeps the loser from sinking everyone else's batch), at most `max`.
fn take_batch(waiting: &mut VecDeque<Waiting>, max: usize) -> Vec<Waiting> {
    let mut batch: Vec<Waiting> = Vec::new();
    let mut kept = VecDeque::new();
    while let Some(next) = waiting.pop_front() {
        if batch.len() == max {
            kept.push_back(next);
            break;
        }
        if batch
            .iter()
            .any(|taken| taken.append.game_id == next.append.game_id)
        {
            kept.push_back(next);
        } else {
            batch.push(next);
        }
    }
    kept.append(waiting);
    *waiting = kept;
    batch
}

enum BatchError {
    /// The statement was refused as a whole; nothing was written.
    Refused,
    /// No connection, or the connection broke: the outcome may be unknown.
    Failed(String),
}

async fn write_batch(
    pool: &Pool,
    prepared: &PreparedAppends,
    batch: &[Waiting],
) -> Result<(), BatchError> {
    let client = pool
        .get()
        .await
        .map_err(|e| BatchError::Failed(StoreError::from(e).to_string()))?;
    let mut appends: Vec<&LinkedAppend> = batch.iter().map(|w| &w.append).collect();
    // One order for every batch, so two batches touching the same games take
    // their index locks in the same order and cannot deadlock.
    appends.sort_by_key(|append| append.game_id);
    let expected: u64 = appends.iter().map(|a| a.events.len() as u64).sum();
    let statement = match prepared.on(&client, AppendShape::of(&appends)).await {
        Ok(statement) => statement,
        Err(error) => return Err(BatchError::Failed(StoreError::from(error).to_string())),
    };
    match insert_prepared(&client, &statement, &appends).await {
        Ok(inserted) if inserted == expected => Ok(()),
        // No rows: some game does not exist (and nothing was written, see
        // INSERT_APPENDS). Which one, a lone run says.
        Ok(_) => Err(BatchError::Refused),
        Err(error) => match StoreError::from(error) {
            // A broken connection or a cancelled statement: not retried.
            StoreError::Unavailable(message) => Err(BatchError::Failed(message)),
            // The database refused the statement (a key taken, a game
            // missing, a value it cannot store): it wrote nothing, and a
            // lone run finds whose append was to blame.
            _ => Err(BatchError::Refused),
        },
    }
}

/// One statement inserting linked appends of any number of games, their
/// idempotency keys and the results of the games they end: atomic on its own, so it needs no explicit transaction.
/// It inserts nothing at all, no event and no key, unless every game exists
/// (games are immutable, so no lock is needed for that to stay true; see
/// migrations/V2): the caller compares the row count, and a batch is never
/// half written.
const INSERT_APPENDS: &str = "
    WITH every_game_exists AS (
        -- $17 holds each game once; an index lookup per game, never a scan.
        SELECT count(*) = cardinality($17::uuid[]) AS yes
        FROM games WHERE game_id = ANY($17::uuid[])
    ), idempotency AS (
        INSERT INTO idempotency_keys (game_id, actor, idempotency_key, request_hash, response)
        SELECT k.*
        FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[])
          AS k(game_id, actor, idempotency_key, request_hash, response)
        WHERE (SELECT yes FROM every_game_exists)
    ), results AS (
        -- The appends that end their game (migrations/V8); rarely any.
        INSERT INTO game_results (game_id, game, created_at, version, winners, finished_at)
        SELECT g.game_id, g.game, g.created_at, r.version, r.winners, r.finished_at
        FROM unnest($18::uuid[], $19::bigint[], $20::jsonb[], $21::timestamptz[])
          AS r(game_id, version, winners, finished_at)
        JOIN games g ON g.game_id = r.game_id
        WHERE (SELECT yes FROM every_game_exists)
        ON CONFLICT (game_id) DO NOTHING
    )
    INSERT INTO events (game_id, seq, event_type, payload, actor, action, rules_version,
                        recorded_at, prev_hash, hash, decided_at)
    SELECT u.*
    FROM unnest($6::uuid[], $7::bigint[], $8::text[], $9::jsonb[], $10::text[], $11::jsonb[],
                $12::int[], $13::timestamptz[], $14::text[], $15::text[], $16::bigint[])
      AS u(game_id, seq, event_type, payload, actor, action, rules_version,
           recorded_at, prev_hash, hash, decided_at)
    WHERE (SELECT yes FROM every_game_exists)";

/// [`INSERT_APPENDS`] for the appends of nearly every batch: without an
/// idempotency key and ending no game. Its twelve arrays are the events'
/// eleven and the games', bound and sent without the nine empty ones of the
/// keys and the results, which cost every action. It inserts
/// nothing unless every game exists, as `INSERT_APPENDS` does.
const INSERT_EVENTS: &str = "
    INSERT INTO events (game_id, seq, event_type, payload, actor, action, rules_version,
                        recorded_at, prev_hash, hash, decided_at)
    SELECT u.*
    FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::jsonb[], $5::text[], $6::jsonb[],
                $7::int[], $8::timestamptz[], $9::text[], $10::text[], $11::bigint[])
      AS u(game_id, seq, event_type, payload, actor, action, rules_version,
           recorded_at, prev_hash, hash, decided_at)
    -- $12 holds each game once; an index lookup per game, never a scan.
    WHERE (SELECT count(*) = cardinality($12::uuid[])
           FROM games WHERE game_id = ANY($12::uuid[]))";

/// [`INSERT_APPENDS`] as it is sent: without its comments and indentation.
/// The pool's statement cache hashes the text on every batch to find it
/// prepared; sent so, it is a fifth shorter.
static INSERT_APPENDS_SENT: LazyLock<String> = LazyLock::new(|| compact_sql(INSERT_APPENDS));

/// [`INSERT_EVENTS`] as it is sent.
static INSERT_EVENTS_SENT: LazyLock<String> = LazyLock::new(|| compact_sql(INSERT_EVENTS));

/// Which append statement a batch needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AppendShape {
    /// Only events: [`INSERT_EVENTS`].
    EventsOnly,
    /// Events with idempotency keys or games' results: [`INSERT_APPENDS`].
    WithKeysOrResults,
}

impl AppendShape {
    fn of(appends: &[&LinkedAppend]) -> AppendShape {
        if appends
            .iter()
            .all(|append| append.idempotency.is_none() && append.result.is_none())
        {
            AppendShape::EventsOnly
        } else {
            AppendShape::WithKeysOrResults
        }
    }

    fn sql(self) -> &'static str {
        match self {
            AppendShape::EventsOnly => &INSERT_EVENTS_SENT,
            AppendShape::WithKeysOrResults => &INSERT_APPENDS_SENT,
        }
    }
}

/// `sql` on one line, without `--` comments or runs of whitespace. For our
/// own statements, which hold no `--` or whitespace inside a literal.
fn compact_sql(sql: &str) -> String {
    sql.lines()
        .map(|line| line.split_once("--").map_or(line, |(code, _)| code))
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs [`INSERT_APPENDS`]; returns how many events were inserted.
pub(crate) async fn insert_appends(
    client: &impl deadpool_postgres::GenericClient,
    appends: &[&LinkedAppend],
) -> Result<u64, tokio_postgres::Error> {
    let statement = client
        .prepare_cached(AppendShape::of(appends).sql())
        .await?;
    insert_prepared(client, &statement, appends).await
}

/// [`insert_appends`] with the statement of the appends' shape
/// ([`AppendShape::of`]) prepared on `client` already.
async fn insert_prepared(
    client: &impl deadpool_postgres::GenericClient,
    statement: &Statement,
    appends: &[&LinkedAppend],
) -> Result<u64, tokio_postgres::Error> {
    let games = Column::new(appends, |a, _| a.game_id);
    let seqs = Column::new(appends, |_, e| e.seq as i64);
    let types = Column::new(appends, |_, e| e.event_type.as_str());
    let payloads = Column::new(appends, |_, e| {
        Jsonb::of(e.encoded.payload.as_ref(), &e.payload)
    });
    let actors = Column::new(appends, |_, e| e.actor.as_str());
    let actions = Column::new(appends, |_, e| {
        (!e.action.is_null()).then(|| Jsonb::of(e.encoded.action.as_ref(), &e.action))
    });
    let rules_versions = Column::new(appends, |_, e| e.rules_version as i32);
    let recorded_ats = Column::new(appends, |a, _| a.recorded_at);
    let prevs = Column::new(appends, |_, e| e.prev_hash.as_str());
    let hashes = Column::new(appends, |_, e| e.hash.as_str());
    let decided_ats = Column::new(appends, |a, _| a.expected_version as i64);
    let mut every_game: Vec<Uuid> = appends.iter().map(|a| a.game_id).collect();
    every_game.sort_unstable();
    every_game.dedup();
    let event_columns: [&(dyn ToSql + Sync); 11] = [
        &games,
        &seqs,
        &types,
        &payloads,
        &actors,
        &actions,
        &rules_versions,
        &recorded_ats,
        &prevs,
        &hashes,
        &decided_ats,
    ];
    if AppendShape::of(appends) == AppendShape::EventsOnly {
        // INSERT_EVENTS: $1–$11 the events, $12 the games.
        let mut params: [&(dyn ToSql + Sync); 12] = [&every_game; 12];
        params[..11].copy_from_slice(&event_columns);
        return client.execute(statement, &params).await;
    }

    let keyed = || {
        appends
            .iter()
            .filter_map(|a| Some((a, a.idempotency.as_ref()?)))
    };
    let key_games: Vec<Uuid> = keyed().map(|(a, _)| a.game_id).collect();
    let key_actors: Vec<&str> = keyed().map(|(_, i)| i.actor.as_str()).collect();
    let keys: Vec<&str> = keyed().map(|(_, i)| i.key.as_str()).collect();
    let request_hashes: Vec<&str> = keyed().map(|(_, i)| i.request_hash.as_str()).collect();
    let answers: Vec<serde_json::Value> = keyed()
        .map(|(_, i)| serde_json::to_value(i.answer).expect("two integers serialise"))
        .collect();
    let ending = || {
        appends
            .iter()
            .filter_map(|a| Some((a, a.result.as_ref()?, a.events.last()?)))
    };
    let ended_games: Vec<Uuid> = ending().map(|(a, _, _)| a.game_id).collect();
    let ended_at_versions: Vec<i64> = ending().map(|(_, _, last)| last.seq as i64).collect();
    let winners: Vec<serde_json::Value> = ending()
        .map(|(_, result, _)| serde_json::json!(result.winners))
        .collect();
    let ended_ats: Vec<DateTime<Utc>> = ending().map(|(a, _, _)| a.recorded_at).collect();

    // INSERT_APPENDS: $1–$5 the keys, $6–$16 the events, $17 the games,
    // $18–$21 the results.
    let mut params: [&(dyn ToSql + Sync); 21] = [&every_game; 21];
    params[..5].copy_from_slice(&[&key_games, &key_actors, &keys, &request_hashes, &answers]);
    params[5..16].copy_from_slice(&event_columns);
    params[17..].copy_from_slice(&[&ended_games, &ended_at_versions, &winners, &ended_ats]);
    client.execute(statement, &params).await
}

/// One column of the appends' events (`value` of each append and event, in
/// order), bound as a PostgreSQL array straight from the appends: the
/// statement's eleven event arrays were collected into vectors of their
/// own first, eleven allocations a batch for nothing.
struct Column<'a, F> {
    appends: &'a [&'a LinkedAppend],
    value: F,
}

impl<'a, T, F> Column<'a, F>
where
    F: Fn(&'a LinkedAppend, &'a RecordedEvent) -> T,
{
    fn new(appends: &'a [&'a LinkedAppend], value: F) -> Self {
        Column { appends, value }
    }

    fn values(&self) -> impl Iterator<Item = T> + use<'_, 'a, T, F> {
        self.appends.iter().flat_map(move |append| {
            append
                .events
                .iter()
                .map(move |event| (self.value)(append, event))
        })
    }
}

impl<F> std::fmt::Debug for Column<'_, F> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Column")
            .field("appends", &self.appends.len())
            .finish_non_exhaustive()
    }
}

impl<'a, T, F> ToSql for Column<'a, F>
where
    T: ToSql,
    F: Fn(&'a LinkedAppend, &'a RecordedEvent) -> T + Sync,
{
    /// As `ToSql for &[T]` writes an array, from the appends' events.
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        let Kind::Array(member) = ty.kind() else {
            return Err(format!("a column binds an array, not {ty}").into());
        };
        let rows: usize = self.appends.iter().map(|append| append.events.len()).sum();
        let dimension = ArrayDimension {
            len: i32::try_from(rows)?,
            lower_bound: 1,
        };
        postgres_protocol::types::array_to_sql(
            Some(dimension),
            member.oid(),
            self.values(),
            |value, out| match value.to_sql(member, out)? {
                IsNull::No => Ok(postgres_protocol::IsNull::No),
                IsNull::Yes => Ok(postgres_protocol::IsNull::Yes),
            },
            out,
        )?;
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        matches!(ty.kind(), Kind::Array(member) if T::accepts(member))
    }

    to_sql_checked!();
}

/// A jsonb parameter of the append: an event's payload or action as the
/// append encoded it for the hash ([`CanonicalJson`]), sent in jsonb's
/// binary form — its version byte, then that JSON — without encoding the
/// value again; or, for an event that carries no encoding, the value.
#[derive(Debug)]
enum Jsonb<'a> {
    Encoded(&'a CanonicalJson),
    Value(&'a serde_json::Value),
}

impl<'a> Jsonb<'a> {
    fn of(encoded: Option<&'a CanonicalJson>, value: &'a serde_json::Value) -> Jsonb<'a> {
        match encoded {
            Some(json) => Jsonb::Encoded(json),
            None => Jsonb::Value(value),
        }
    }
}

/// The version of jsonb's binary form, before the JSON text.
const JSONB_VERSION: u8 = 1;

impl ToSql for Jsonb<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Jsonb::Encoded(json) => {
                out.put_u8(JSONB_VERSION);
                out.put_slice(json.as_str().as_bytes());
                Ok(IsNull::No)
            }
            Jsonb::Value(value) => value.to_sql(ty, out),
        }
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::JSONB
    }

    to_sql_checked!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_append_statement_is_prepared_once_per_connection_and_forgotten_with_it() {
        let pool = crate::testing::patient_pool(&crate::testing::fresh_database_url().await, 2);
        let prepared = PreparedAppends::default();
        let first = pool.get().await.unwrap();
        let second = pool.get().await.unwrap();
        // Each connection its own statement: one prepared on another
        // connection is unknown to this one, and running it would fail.
        let nothing = AppendShape::of(&[]);
        for client in [&first, &second, &first, &second] {
            let statement = prepared.on(client, nothing).await.unwrap();
            assert_eq!(insert_prepared(client, &statement, &[]).await.unwrap(), 0);
        }
        assert_eq!(prepared.0.lock().len(), 2);
        // A closed connection's entry goes when the next one is added.
        drop(deadpool_postgres::Object::take(first));
        let third = pool.get().await.unwrap();
        let statement = prepared.on(&third, nothing).await.unwrap();
        assert_eq!(insert_prepared(&third, &statement, &[]).await.unwrap(), 0);
        assert_eq!(prepared.0.lock().len(), 2);
        // Each shape its own statement on a connection.
        let full = prepared
            .on(&third, AppendShape::WithKeysOrResults)
            .await
            .unwrap();
        assert_ne!(full.params().len(), statement.params().len());
        assert_eq!(prepared.0.lock().len(), 3);
    }

    #[test]
    fn a_statement_is_sent_without_its_comments_and_indentation() {
        assert_eq!(
            compact_sql("\n    SELECT a, -- why a\n        b\n    FROM t -- and t\n"),
            "SELECT a, b FROM t"
        );
        let sent = INSERT_APPENDS_SENT.as_str();
        assert!(!sent.contains("--") && !sent.contains('\n') && !sent.contains("  "));
        assert!(sent
            .starts_with("WITH every_game_exists AS ( SELECT count(*) = cardinality($17::uuid[])"));
        assert!(sent.ends_with("WHERE (SELECT yes FROM every_game_exists)"));
        let events = INSERT_EVENTS_SENT.as_str();
        assert!(!events.contains("--") && !events.contains('\n') && !events.contains("  "));
        assert!(events.ends_with("FROM games WHERE game_id = ANY($12::uuid[]))"));
        // What the cache hashes on every batch: a fifth shorter.
        assert!(sent.len() * 5 < INSERT_APPENDS.len() * 4, "{}", sent.len());
    }
}

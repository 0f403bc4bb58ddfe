//! Bulk reads and writes: every game streamed out of the database in one pass
//! (for bulk scoring and export), and games imported whole with their stored
//! hashes, a batch of them per transaction.
//!
//! Streaming uses `COPY (SELECT … ORDER BY game_id, seq) TO STDOUT` in the
//! binary format on connections taken out of the pool (so the pool's
//! statement timeout does not cut a long read short): the games and the
//! events come in two sorted streams that are merged by game id, so each
//! game's options are sent once rather than with every event, and only one
//! game is ever held in memory.

use std::pin::Pin;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use futures_util::{Stream, StreamExt};
use serde_json::Value;
use tokio_postgres::binary_copy::{BinaryCopyInWriter, BinaryCopyOutRow, BinaryCopyOutStream};
use tokio_postgres::types::Type;
use uuid::Uuid;

use umpire_domain::record::format_recorded_at;
use umpire_domain::RecordedEvent;

use umpire_domain::record::RecordedRejection;

use crate::append::GameResult;
use crate::store::{token_role, GameRecord, NewToken};
use crate::{EventStore, StoreError};

/// An event row's columns as archives and import move them by binary
/// `COPY`, and their types, in the same order.
const EVENT_COLUMNS: &str = "game_id, seq, event_type, payload, actor, action, rules_version, \
     recorded_at, prev_hash, hash, decided_at";
const EVENT_TYPES: [Type; 11] = [
    Type::UUID,
    Type::INT8,
    Type::TEXT,
    Type::JSONB,
    Type::TEXT,
    Type::JSONB,
    Type::INT4,
    Type::TIMESTAMPTZ,
    Type::TEXT,
    Type::TEXT,
    Type::INT8,
];

/// A rejection row's columns as archives carry them (import adds a fresh
/// `rejection_id`), and their types, in the same order.
const REJECTION_COLUMNS: &str = "game_id, at_version, actor, action, code, message, rule, \
     rules_version, recorded_at, repeats";
const REJECTION_TYPES: [Type; 10] = [
    Type::UUID,
    Type::INT8,
    Type::TEXT,
    Type::JSONB,
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::INT4,
    Type::TIMESTAMPTZ,
    Type::INT8,
];

/// One game as bulk scoring needs it: the options and the event payloads as
/// JSON text, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct BulkGame {
    pub game_id: Uuid,
    pub game: String,
    /// The stored options, as JSON text.
    pub options: String,
    /// Event payloads, as JSON text, in sequence order.
    pub payloads: Vec<String>,
}

impl BulkGame {
    /// Bytes of JSON this game carried.
    pub fn json_bytes(&self) -> usize {
        self.options.len() + self.payloads.iter().map(String::len).sum::<usize>()
    }
}

/// One whole game for export: record, events with hashes, rejections.
#[derive(Debug, Clone)]
pub struct FullGame {
    pub record: GameRecord,
    pub events: Vec<RecordedEvent>,
    pub rejections: Vec<RecordedRejection>,
}

/// A game to import, events and hashes exactly as they were stored elsewhere.
#[derive(Debug, Clone)]
pub struct ImportGame<'a> {
    pub record: GameRecord,
    pub events: &'a [RecordedEvent],
    pub rejections: &'a [RecordedRejection],
    pub tokens: Vec<NewToken>,
    /// How the game ended, when its log ends it (the replay that validated
    /// it says so): listed as finished from the start.
    pub result: Option<GameResult>,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportOutcome {
    Imported,
    /// A game with this id is already stored; nothing was written.
    AlreadyExists,
}

/// How long each statement of an import's batch may run
/// ([`EventStore::import_games`]).
pub const IMPORT_STATEMENT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

type RowStream = Pin<Box<BinaryCopyOutStream>>;

/// A connection of its own for a long read: out of the pool, without the
/// pool's statement timeout. Closed when dropped.
async fn long_read_connection(
    store: &EventStore,
) -> Result<deadpool_postgres::ClientWrapper, StoreError> {
    let client = deadpool_postgres::Object::take(store.pool().get().await?);
    client
        .batch_execute("SET statement_timeout = 0; SET default_transaction_read_only = on")
        .await?;
    Ok(client)
}

async fn copy_out(
    client: &deadpool_postgres::ClientWrapper,
    query: &str,
    types: &[Type],
) -> Result<RowStream, StoreError> {
    let stream = client
        .copy_out(&format!("COPY ({query}) TO STDOUT (FORMAT binary)"))
        .await?;
    Ok(Box::pin(BinaryCopyOutStream::new(stream, types)))
}

/// Rows of one game from a stream sorted by game id: takes the row held
/// back last time, then every following row with `game_id`, and holds back
/// the first row of the next game.
async fn rows_of(
    sorted: &mut SortedRows,
    game_id: Uuid,
) -> Result<Vec<BinaryCopyOutRow>, StoreError> {
    let mut rows = Vec::new();
    loop {
        let row = match sorted.held.take() {
            Some(row) => row,
            // A binary copy stream that has ended answers "closed" if polled
            // again, so it is polled no more.
            None if sorted.finished => return Ok(rows),
            None => match sorted.stream.next().await {
                Some(row) => row?,
                None => {
                    sorted.finished = true;
                    return Ok(rows);
                }
            },
        };
        let id: Uuid = row.try_get(0)?;
        if id == game_id {
            rows.push(row);
        } else if id < game_id {
            // A row of a game without a games row cannot exist (foreign
            // key); skip rather than stall the merge.
            continue;
        } else {
            sorted.held = Some(row);
            return Ok(rows);
        }
    }
}

/// A stream of rows sorted by game id, with the first row of the next game
/// held back.
struct SortedRows {
    stream: RowStream,
    held: Option<BinaryCopyOutRow>,
    finished: bool,
}

impl SortedRows {
    fn new(stream: RowStream) -> Self {
        SortedRows {
            stream,
            held: None,
            finished: false,
        }
    }
}

/// One table read for the merge: a query sorted by game id (its first
/// column) and its columns' types.
struct SortedQuery<'a> {
    sql: &'a str,
    types: &'a [Type],
}

/// The games' rows and the rows of the tables keyed by game, each streamed
/// on a connection of its own, merged one game at a time.
struct GameMerge<D> {
    // Held so the connections live as long as the streams.
    _connections: Vec<deadpool_postgres::ClientWrapper>,
    games: RowStream,
    /// One per table keyed by game, in the order they were asked for.
    keyed: Vec<SortedRows>,
    /// Makes an item of a game's row and its rows in each keyed table.
    decode: D,
}

fn version_of(seq: i64) -> u64 {
    u64::try_from(seq).unwrap_or(0)
}

impl EventStore {
    /// Streams `games` (one row per game) merged with the tables of `keyed`
    /// (any number of rows per game), all sorted by game id: one item per
    /// game, made by `decode` from the game's row and its rows in each keyed
    /// table, in that order. Memory holds one game (plus the driver's
    /// buffers), however many games are stored.
    async fn merged_by_game<const N: usize, T, D>(
        &self,
        games: SortedQuery<'_>,
        keyed: [SortedQuery<'_>; N],
        decode: D,
    ) -> Result<impl Stream<Item = Result<T, StoreError>> + Send + 'static, StoreError>
    where
        T: Send + 'static,
        D: Fn(&BinaryCopyOutRow, [Vec<BinaryCopyOutRow>; N]) -> Result<T, StoreError>
            + Send
            + Sync
            + 'static,
    {
        let games_connection = long_read_connection(self).await?;
        let games = copy_out(&games_connection, games.sql, games.types).await?;
        let mut connections = vec![games_connection];
        let mut keyed_rows = Vec::with_capacity(keyed.len());
        for table in keyed {
            let connection = long_read_connection(self).await?;
            keyed_rows.push(SortedRows::new(
                copy_out(&connection, table.sql, table.types).await?,
            ));
            connections.push(connection);
        }
        let merge = GameMerge {
            _connections: connections,
            games,
            keyed: keyed_rows,
            decode,
        };
        Ok(futures_util::stream::unfold(
            merge,
            |mut merge| async move {
                let next = async {
                    let Some(row) = merge.games.next().await else {
                        return Ok(None);
                    };
                    let row = row?;
                    let game_id: Uuid = row.try_get(0)?;
                    let mut rows = Vec::with_capacity(N);
                    for table in &mut merge.keyed {
                        rows.push(rows_of(table, game_id).await?);
                    }
                    let Ok(rows) = <[_; N]>::try_from(rows) else {
                        unreachable!("one group of rows per keyed table")
                    };
                    (merge.decode)(&row, rows).map(Some)
                }
                .await;
                match next {
                    Ok(Some(game)) => Some((Ok(game), merge)),
                    Ok(None) => None,
                    Err(error) => Some((Err(error), merge)),
                }
            },
        ))
    }

    /// Every game with its event payloads, one game at a time, in game id
    /// order. Memory holds one game (plus the driver's buffers), however
    /// many games are stored.
    pub async fn stream_games(
        &self,
    ) -> Result<impl Stream<Item = Result<BulkGame, StoreError>> + Send + 'static, StoreError> {
        self.merged_by_game(
            SortedQuery {
                sql: "SELECT game_id, game, options::text FROM games ORDER BY game_id",
                types: &[Type::UUID, Type::TEXT, Type::TEXT],
            },
            [SortedQuery {
                sql: "SELECT game_id, payload::text FROM events ORDER BY game_id, seq",
                types: &[Type::UUID, Type::TEXT],
            }],
            |game, [events]| {
                let payloads = events
                    .iter()
                    .map(|row| row.try_get::<&str>(1).map(str::to_string))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(BulkGame {
                    game_id: game.try_get(0)?,
                    game: game.try_get::<&str>(1)?.to_string(),
                    options: game.try_get::<&str>(2)?.to_string(),
                    payloads,
                })
            },
        )
        .await
    }

    /// Every game whole (record, events with hashes, rejections), one at a
    /// time in game id order, for exporting everything.
    pub async fn stream_archives(
        &self,
    ) -> Result<impl Stream<Item = Result<FullGame, StoreError>> + Send + 'static, StoreError> {
        let events = format!("SELECT {EVENT_COLUMNS} FROM events ORDER BY game_id, seq");
        let rejections = format!(
            "SELECT {REJECTION_COLUMNS} FROM rejected_actions
             ORDER BY game_id, at_version, recorded_at"
        );
        self.merged_by_game(
            SortedQuery {
                sql: "SELECT game_id, game, options, seed, rules_version, created_at
                      FROM games ORDER BY game_id",
                types: &[
                    Type::UUID,
                    Type::TEXT,
                    Type::JSONB,
                    Type::INT8,
                    Type::INT4,
                    Type::TIMESTAMPTZ,
                ],
            },
            [
                SortedQuery {
                    sql: &events,
                    types: &EVENT_TYPES,
                },
                SortedQuery {
                    sql: &rejections,
                    types: &REJECTION_TYPES,
                },
            ],
            |game, [events, rejections]| {
                let record = GameRecord {
                    game_id: game.try_get(0)?,
                    game: game.try_get(1)?,
                    options: game.try_get(2)?,
                    seed: game.try_get(3)?,
                    rules_version: u32::try_from(game.try_get::<i32>(4)?).unwrap_or(0),
                    created_at: game.try_get(5)?,
                };
                let events = events
                    .iter()
                    .map(|row| {
                        let action: Option<Value> = row.try_get(5)?;
                        Ok::<_, tokio_postgres::Error>(RecordedEvent {
                            seq: version_of(row.try_get(1)?),
                            event_type: row.try_get(2)?,
                            payload: row.try_get(3)?,
                            actor: row.try_get(4)?,
                            action: Arc::new(action.unwrap_or(Value::Null)),
                            rules_version: u32::try_from(row.try_get::<i32>(6)?).unwrap_or(0),
                            recorded_at: format_recorded_at(&row.try_get(7)?),
                            prev_hash: row.try_get(8)?,
                            hash: row.try_get(9)?,
                            encoded: Default::default(),
                            decided_at: version_of(row.try_get(10)?),
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let rejections = rejections
                    .iter()
                    .map(|row| {
                        Ok::<_, tokio_postgres::Error>(RecordedRejection {
                            at_version: version_of(row.try_get(1)?),
                            actor: row.try_get(2)?,
                            action: row.try_get(3)?,
                            code: row.try_get(4)?,
                            message: row.try_get(5)?,
                            rule: row.try_get(6)?,
                            rules_version: u32::try_from(row.try_get::<i32>(7)?).unwrap_or(0),
                            recorded_at: format_recorded_at(&row.try_get(8)?),
                            repeats: u64::try_from(row.try_get::<i64>(9)?).unwrap_or(1),
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(FullGame {
                    record,
                    events,
                    rejections,
                })
            },
        )
        .await
    }

    /// Stores a whole game exactly as given — events with their recorded
    /// times and hashes, rejections, tokens — in one transaction. The caller
    /// validates the game first (by replay); nothing partial is ever stored.
    pub async fn import_game(&self, game: &ImportGame<'_>) -> Result<ImportOutcome, StoreError> {
        let outcomes = self.import_games(std::slice::from_ref(game)).await?;
        Ok(outcomes
            .into_iter()
            .next()
            .unwrap_or(ImportOutcome::AlreadyExists))
    }

    /// Stores many whole games in one transaction (one commit, one WAL
    /// flush), each exactly as given: one statement per table for the lot.
    /// A game whose id is already stored (or taken by an earlier game of the
    /// same batch) is `AlreadyExists` and nothing of it is written; the
    /// others are stored. On an error nothing of the batch is stored.
    pub async fn import_games(
        &self,
        games: &[ImportGame<'_>],
    ) -> Result<Vec<ImportOutcome>, StoreError> {
        let parse_time = |text: &str| {
            DateTime::parse_from_rfc3339(text)
                .map(|time| time.with_timezone(&Utc))
                .map_err(|e| StoreError::Corrupt(format!("time `{text}`: {e}")))
        };
        let mut client = self.pool().get().await?;
        let transaction = client.transaction().await?;
        // A batch is bulk work, bounded by its size (the importer's: 64
        // games or 16,384 events), not a request's statement: four archive
        // bodies may be imported at once, and on a database busy with them
        // and more a batch's COPY (every payload TOASTed) took past the
        // pool's 10 s. A batch that fails is stored game by game, but a game
        // is never split, so one long log would then never be imported.
        transaction
            .batch_execute(&format!(
                "SET LOCAL statement_timeout = '{}s'",
                IMPORT_STATEMENT_TIMEOUT.as_secs()
            ))
            .await?;
        let ids: Vec<Uuid> = games.iter().map(|g| g.record.game_id).collect();
        let names: Vec<&str> = games.iter().map(|g| g.record.game.as_str()).collect();
        let options: Vec<&Value> = games.iter().map(|g| &g.record.options).collect();
        let seeds: Vec<i64> = games.iter().map(|g| g.record.seed).collect();
        let rules: Vec<i32> = games
            .iter()
            .map(|g| g.record.rules_version as i32)
            .collect();
        let created: Vec<DateTime<Utc>> = games.iter().map(|g| g.record.created_at).collect();
        let inserted: std::collections::HashSet<Uuid> = transaction
            .query(
                "INSERT INTO games (game_id, game, options, seed, rules_version, created_at)
                 SELECT * FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $4::bigint[],
                                      $5::int[], $6::timestamptz[])
                 ON CONFLICT (game_id) DO NOTHING RETURNING game_id",
                &[&ids, &names, &options, &seeds, &rules, &created],
            )
            .await?
            .iter()
            .map(|row| row.get(0))
            .collect();
        // The first game of the batch with an id that was inserted is the
        // one stored; a later game with the same id already exists.
        let mut claimed = std::collections::HashSet::new();
        let outcomes: Vec<ImportOutcome> = games
            .iter()
            .map(|game| {
                let id = game.record.game_id;
                if inserted.contains(&id) && claimed.insert(id) {
                    ImportOutcome::Imported
                } else {
                    ImportOutcome::AlreadyExists
                }
            })
            .collect();
        let stored: Vec<&ImportGame<'_>> = games
            .iter()
            .zip(&outcomes)
            .filter(|(_, outcome)| **outcome == ImportOutcome::Imported)
            .map(|(game, _)| game)
            .collect();
        if stored.is_empty() {
            transaction.commit().await?;
            return Ok(outcomes);
        }

        let tokens: Vec<(Uuid, &NewToken)> = stored
            .iter()
            .flat_map(|game| game.tokens.iter().map(|t| (game.record.game_id, t)))
            .collect();
        let token_games: Vec<Uuid> = tokens.iter().map(|(id, _)| *id).collect();
        let hashes: Vec<&str> = tokens.iter().map(|(_, t)| t.token_hash.as_str()).collect();
        let (roles, seats): (Vec<&str>, Vec<Option<&str>>) =
            tokens.iter().map(|(_, t)| token_role(&t.grant)).unzip();
        transaction
            .execute(
                "INSERT INTO tokens (game_id, token_hash, role, seat)
                 SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[])",
                &[&token_games, &hashes, &roles, &seats],
            )
            .await?;

        // Events and rejections go in by binary COPY: it streams rows in
        // 4 KiB blocks, where an `unnest` of arrays would make the server
        // build and hold every array of the batch before inserting a row.
        // COPY fires the same triggers and checks the same constraints.
        let events = transaction
            .copy_in(&format!(
                "COPY events ({EVENT_COLUMNS}) FROM STDIN (FORMAT binary)"
            ))
            .await?;
        let events = BinaryCopyInWriter::new(events, &EVENT_TYPES);
        futures_util::pin_mut!(events);
        for game in &stored {
            for event in game.events {
                let action = (!event.action.is_null()).then_some(event.action.as_ref());
                events
                    .as_mut()
                    .write(&[
                        &game.record.game_id,
                        &(event.seq as i64),
                        &event.event_type,
                        &event.payload,
                        &event.actor,
                        &action,
                        &(event.rules_version as i32),
                        &parse_time(&event.recorded_at)?,
                        &event.prev_hash,
                        &event.hash,
                        &(event.decided_at as i64),
                    ])
                    .await?;
            }
        }
        events.finish().await?;

        // The caller has refused archives holding one refusal twice (the
        // unique index on a refusal's identity would refuse them here too).
        if stored.iter().any(|game| !game.rejections.is_empty()) {
            let rejections = transaction
                .copy_in(&format!(
                    "COPY rejected_actions ({REJECTION_COLUMNS}, rejection_id)
                     FROM STDIN (FORMAT binary)"
                ))
                .await?;
            let types = [REJECTION_TYPES.as_slice(), &[Type::UUID]].concat();
            let rejections = BinaryCopyInWriter::new(rejections, &types);
            futures_util::pin_mut!(rejections);
            for game in &stored {
                for rejection in game.rejections {
                    rejections
                        .as_mut()
                        .write(&[
                            &game.record.game_id,
                            &(rejection.at_version as i64),
                            &rejection.actor,
                            &rejection.action,
                            &rejection.code,
                            &rejection.message,
                            &rejection.rule,
                            &(rejection.rules_version as i32),
                            &parse_time(&rejection.recorded_at)?,
                            &i64::try_from(rejection.repeats).unwrap_or(i64::MAX),
                            &Uuid::new_v4(),
                        ])
                        .await?;
                }
            }
            rejections.finish().await?;
        }
        insert_results(&transaction, &stored).await?;
        transaction.commit().await?;
        Ok(outcomes)
    }
}

/// The results of the imported games that are finished, in the import's
/// transaction (migrations/V8): each ended with its last event.
async fn insert_results(
    transaction: &deadpool_postgres::Transaction<'_>,
    stored: &[&ImportGame<'_>],
) -> Result<(), StoreError> {
    let ended = || {
        stored
            .iter()
            .filter_map(|game| Some((game, game.result.as_ref()?, game.events.last()?)))
    };
    if ended().next().is_none() {
        return Ok(());
    }
    let ids: Vec<Uuid> = ended().map(|(game, _, _)| game.record.game_id).collect();
    let versions: Vec<i64> = ended().map(|(_, _, last)| last.seq as i64).collect();
    let winners: Vec<Value> = ended()
        .map(|(_, result, _)| serde_json::json!(result.winners))
        .collect();
    let finished_ats: Vec<DateTime<Utc>> = ended()
        .map(|(_, _, last)| {
            DateTime::parse_from_rfc3339(&last.recorded_at)
                .map(|time| time.with_timezone(&Utc))
                .map_err(|e| StoreError::Corrupt(format!("time `{}`: {e}", last.recorded_at)))
        })
        .collect::<Result<_, _>>()?;
    transaction
        .execute(
            "INSERT INTO game_results (game_id, game, created_at, version, winners, finished_at)
             SELECT g.game_id, g.game, g.created_at, r.version, r.winners, r.finished_at
             FROM unnest($1::uuid[], $2::bigint[], $3::jsonb[], $4::timestamptz[])
               AS r(game_id, version, winners, finished_at)
             JOIN games g ON g.game_id = r.game_id",
            &[&ids, &versions, &winners, &finished_ats],
        )
        .await?;
    Ok(())
}

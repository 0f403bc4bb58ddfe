//! The list of games: newest first, by game and by whether each is
//! finished, a keyset page at a time (migrations/V8).
//!
//! A page is read in two statements. The first walks an index from the
//! cursor and picks the page's game ids: `games (created_at, game_id)` or
//! `(game, created_at, game_id)` for every game, the same on
//! `game_results` for finished ones. Games in progress are the games
//! without a result, which no index holds (a game's rows never change): the
//! walk examines at most [`GAMES_EXAMINED_PER_PAGE`] games, so a page of
//! them may be short, even empty, and still have a next one. The second
//! statement reads the picked games, each with its last event (one index
//! lookup per game, on the events' primary key).

use chrono::{DateTime, Utc};
use serde_json::Value;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use crate::{EventStore, StoreError};

/// At most this many games are examined for a page of games in progress,
/// however many of them are finished: what bounds that page's work.
pub const GAMES_EXAMINED_PER_PAGE: usize = 1_000;

/// Which games to list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GameListFilter<'a> {
    /// Only games of this kind (a registry id).
    pub game: Option<&'a str>,
    /// Only finished games (`Some(true)`) or games in progress (`Some(false)`).
    pub finished: Option<bool>,
}

/// Where a page ended: the next page lists the games listed after it
/// (created earlier, or at the same time with a smaller id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListCursor {
    pub created_at: DateTime<Utc>,
    pub game_id: Uuid,
}

/// One game as the list shows it. `options` are for the caller to derive
/// the seats from; they are not meant to be shown.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedGame {
    pub game_id: Uuid,
    pub game: String,
    pub options: Value,
    pub created_at: DateTime<Utc>,
    /// The number of events so far.
    pub version: u64,
    /// When the last event was recorded.
    pub last_event_at: Option<DateTime<Utc>>,
    pub finished: bool,
    /// The final winners by seat name, once the game is finished (`None`
    /// too for a game that ended before they were recorded, migrations/V8).
    pub winners: Option<Vec<String>>,
}

/// A page of games, and where the next one starts (`None` after the last).
#[derive(Debug, Clone, PartialEq)]
pub struct GamePage {
    pub games: Vec<ListedGame>,
    pub next: Option<ListCursor>,
}

/// The picked games, with the position of each in the page.
const READ_PAGE: &str = "
    SELECT g.game_id, g.game, g.options, g.created_at, r.winners, last.seq, last.recorded_at,
           r.game_id IS NOT NULL AS finished
    FROM unnest($1::uuid[]) WITH ORDINALITY AS page(game_id, position)
    JOIN games g ON g.game_id = page.game_id
    LEFT JOIN game_results r ON r.game_id = page.game_id
    LEFT JOIN LATERAL (
        SELECT seq, recorded_at FROM events e
        WHERE e.game_id = page.game_id ORDER BY seq DESC LIMIT 1
    ) AS last ON true
    ORDER BY page.position";

/// The statement that walks an index for a page's keys: `table` from the
/// cursor (when `after`), of one kind of game (when `by_game`), newest
/// first; its rows are `(game_id, created_at, finished)`.
fn walk(table: &str, finished: &str, by_game: bool, after: bool) -> String {
    let mut conditions = Vec::new();
    let mut next = 1;
    if by_game {
        conditions.push(format!("game = ${next}"));
        next += 1;
    }
    if after {
        conditions.push(format!("(created_at, game_id) < (${next}, ${})", next + 1));
        next += 2;
    }
    let conditions = if conditions.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conditions.join(" AND "))
    };
    format!(
        "SELECT game_id, created_at, {finished} FROM {table} AS listed {conditions}
         ORDER BY created_at DESC, game_id DESC LIMIT ${next}"
    )
}

impl EventStore {
    /// Up to `limit` games after `after` (from the newest when `None`) that
    /// `filter` lets through, newest first (`created_at`, then `game_id`,
    /// both descending). Bounded: one index walk of at most `limit + 1`
    /// rows, or [`GAMES_EXAMINED_PER_PAGE`] for games in progress, then one
    /// read of the page's games.
    pub async fn list_games(
        &self,
        filter: GameListFilter<'_>,
        after: Option<&ListCursor>,
        limit: usize,
    ) -> Result<GamePage, StoreError> {
        let limit = limit.max(1);
        let (table, finished, walked) = match filter.finished {
            None => ("games", "false", limit + 1),
            Some(true) => ("game_results", "true", limit + 1),
            Some(false) => (
                "games",
                "EXISTS (SELECT 1 FROM game_results r WHERE r.game_id = listed.game_id)",
                GAMES_EXAMINED_PER_PAGE.max(limit + 1),
            ),
        };
        let client = self.pool().get().await?;
        let statement = client
            .prepare_cached(&walk(
                table,
                finished,
                filter.game.is_some(),
                after.is_some(),
            ))
            .await?;
        let walked_rows = walked as i64;
        let mut parameters: Vec<&(dyn ToSql + Sync)> = Vec::new();
        if let Some(game) = &filter.game {
            parameters.push(game);
        }
        if let Some(cursor) = after {
            parameters.push(&cursor.created_at);
            parameters.push(&cursor.game_id);
        }
        parameters.push(&walked_rows);
        let rows = client.query(&statement, &parameters).await?;
        let key = |row: &tokio_postgres::Row| ListCursor {
            game_id: row.get(0),
            created_at: row.get(1),
        };
        // Games in progress are the walked games without a result; a full
        // page is `limit` of them with one more found after.
        let kept: Vec<&tokio_postgres::Row> = rows
            .iter()
            .filter(|row| filter.finished != Some(false) || !row.get::<_, bool>(2))
            .take(limit + 1)
            .collect();
        let next = if kept.len() > limit {
            Some(key(kept[limit - 1]))
        } else if filter.finished == Some(false) && rows.len() == walked {
            // The walk stopped before finding a full page: go on from
            // where it stopped.
            rows.last().map(key)
        } else {
            None
        };
        let ids: Vec<Uuid> = kept.iter().take(limit).map(|row| row.get(0)).collect();
        if ids.is_empty() {
            return Ok(GamePage {
                games: Vec::new(),
                next,
            });
        }
        let statement = client.prepare_cached(READ_PAGE).await?;
        let games = client
            .query(&statement, &[&ids])
            .await?
            .iter()
            .map(listed_game)
            .collect::<Result<_, _>>()?;
        Ok(GamePage { games, next })
    }
}

fn listed_game(row: &tokio_postgres::Row) -> Result<ListedGame, StoreError> {
    let game_id: Uuid = row.get(0);
    let winners = row
        .get::<_, Option<Value>>(4)
        .filter(|winners| !winners.is_null())
        .map(serde_json::from_value::<Vec<String>>)
        .transpose()
        .map_err(|e| StoreError::Corrupt(format!("the winners of game {game_id}: {e}")))?;
    Ok(ListedGame {
        game_id,
        game: row.get(1),
        options: row.get(2),
        created_at: row.get(3),
        version: row
            .get::<_, Option<i64>>(5)
            .and_then(|seq| u64::try_from(seq).ok())
            .unwrap_or(0),
        last_event_at: row.get(6),
        finished: row.get(7),
        winners,
    })
}

//! The list of games (`GET /v1/games`): newest first, by game and status,
//! a page at a time; and how a game's end is told to the store, so that the
//! list knows it without folding the game (`result_of`).
//!
//! An entry shows what any spectator of the game may read from its summary
//! (`GET /v1/games/{id}`): the game, its seats, its version, whether it is
//! finished and, once it is, its winners, and when it was created and last
//! moved. Never its options, seed or tokens.

use serde::{Deserialize, Serialize};
use umpire_domain::erased::DynMatch;
use umpire_storage::{GameListFilter, GameResult, ListCursor, ListedGame};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::ServiceError;
use crate::fold::corrupt;
use crate::games::GameService;

/// Games per page when the request does not say.
pub const DEFAULT_GAME_PAGE: usize = 50;
/// The most games a page may hold.
pub const MAX_GAME_PAGE: usize = 200;

/// Which games a status filter keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameStatusFilter {
    /// Games not finished yet (`status.finished` false).
    InProgress,
    /// Finished games (`status.finished` true).
    Finished,
}

/// What a list of games is asked for.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct GameListQuery {
    /// Only games of this kind (a registered game, as `/v1/game-types` lists them).
    #[param(value_type = Option<crate::model::GameName>)]
    pub game: Option<String>,
    /// Only games in progress, or only finished ones.
    pub status: Option<GameStatusFilter>,
    /// The `next` of the previous page, as it was given: the page after it.
    pub after: Option<String>,
    /// At most this many games (default 50, at most 200).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<usize>,
}

/// One game of the list: what a spectator may read of it.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
pub struct GameListEntry {
    pub id: Uuid,
    pub game: String,
    pub seats: Vec<String>,
    /// The number of events so far.
    pub version: u64,
    pub finished: bool,
    /// Once the game is finished: the final winners by seat name (one,
    /// several for a shared win, none for a draw or a solo game); absent
    /// for a game that ended before this service recorded them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winners: Option<Vec<String>>,
    /// RFC 3339.
    pub created_at: String,
    /// When its last event was recorded (RFC 3339).
    pub last_event_at: String,
}

/// A page of games, newest first.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
pub struct GameList {
    pub games: Vec<GameListEntry>,
    /// Where the next page starts (pass it as `after`), or null after the
    /// last. A page of games in progress may be short, even empty, and
    /// still have a next one: each page examines at most 1,000 games.
    pub next: Option<String>,
}

/// How the game ended, if `after` (the state after an append's events) is
/// over: what the append tells the store.
pub(crate) fn result_of(after: &dyn DynMatch) -> Option<GameResult> {
    result_when(after, after.status().finished)
}

/// [`result_of`], where whether `after` is over is known already (from
/// its status, made once for an append and its answer).
pub(crate) fn result_when(after: &dyn DynMatch, finished: bool) -> Option<GameResult> {
    finished.then(|| GameResult {
        winners: after.summary().winners,
    })
}

/// A cursor as clients hold it: opaque, 48 hex digits (when the last game
/// listed was created, in microseconds, then its id).
fn encode_cursor(cursor: &ListCursor) -> String {
    let mut bytes = cursor.created_at.timestamp_micros().to_be_bytes().to_vec();
    bytes.extend_from_slice(cursor.game_id.as_bytes());
    hex::encode(bytes)
}

/// The earliest `timestamptz` PostgreSQL holds (4714-11-24 00:00 BC, UTC),
/// in microseconds since the Unix epoch.
const EARLIEST_POSTGRESQL_MICROS: i64 = -210_866_803_200_000_000;

fn decode_cursor(text: &str) -> Result<ListCursor, ServiceError> {
    let invalid = || {
        ServiceError::invalid(
            "invalid_cursor",
            "`after` is not a cursor this list gave: pass the `next` of the previous page as it is.",
        )
    };
    let bytes = hex::decode(text).map_err(|_| invalid())?;
    let (micros, id) = bytes.split_at_checked(8).ok_or_else(invalid)?;
    let micros = i64::from_be_bytes(micros.try_into().map_err(|_| invalid())?);
    // What PostgreSQL cannot hold never reaches it: it would answer an
    // error, not an empty page. (Its latest timestamp is past chrono's.)
    if micros < EARLIEST_POSTGRESQL_MICROS {
        return Err(invalid());
    }
    Ok(ListCursor {
        created_at: chrono::DateTime::from_timestamp_micros(micros).ok_or_else(invalid)?,
        game_id: Uuid::from_slice(id).map_err(|_| invalid())?,
    })
}

impl GameService {
    /// A page of the games stored, newest first. Who may list them is the
    /// caller's to decide (the admin token, when the service has one).
    pub async fn list_games(&self, query: &GameListQuery) -> Result<GameList, ServiceError> {
        let limit = query.limit.unwrap_or(DEFAULT_GAME_PAGE);
        if !(1..=MAX_GAME_PAGE).contains(&limit) {
            return Err(ServiceError::invalid(
                "invalid_limit",
                format!("`limit` must be between 1 and {MAX_GAME_PAGE}, not {limit}."),
            ));
        }
        if let Some(game) = &query.game {
            if self.registry.get(game).is_err() {
                let known: Vec<&str> = self.registry.games().map(|game| game.id()).collect();
                return Err(ServiceError::invalid(
                    "invalid_query",
                    format!(
                        "There is no game `{game}` to list: the games are {}.",
                        known.join(", ")
                    ),
                ));
            }
        }
        let after = query.after.as_deref().map(decode_cursor).transpose()?;
        let filter = GameListFilter {
            game: query.game.as_deref(),
            finished: query
                .status
                .map(|status| status == GameStatusFilter::Finished),
        };
        let page = self.store.list_games(filter, after.as_ref(), limit).await?;
        Ok(GameList {
            games: page
                .games
                .into_iter()
                .map(|listed| self.entry(listed))
                .collect::<Result<_, _>>()?,
            next: page.next.as_ref().map(encode_cursor),
        })
    }

    fn entry(&self, listed: ListedGame) -> Result<GameListEntry, ServiceError> {
        let seats = self
            .registry
            .get(&listed.game)
            .and_then(|game| game.seats(&listed.options))
            .map_err(|e| corrupt(listed.game_id, e))?;
        Ok(GameListEntry {
            id: listed.game_id,
            game: listed.game,
            seats,
            version: listed.version,
            finished: listed.finished,
            winners: listed.winners,
            created_at: listed.created_at.to_rfc3339(),
            last_event_at: listed
                .last_event_at
                .unwrap_or(listed.created_at)
                .to_rfc3339(),
        })
    }
}

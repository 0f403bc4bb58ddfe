//! Announcements of appends (migrations/V5): after each committed statement
//! that appends events, PostgreSQL notifies the channel
//! [`APPENDS_CHANNEL`] with `<game id> <version>` for each game it extended.
//! Several service instances on one database learn of each other's appends
//! this way. An announcement carries no event: it only says "read the log
//! after N", and the log stays the source of truth.

use std::future::{poll_fn, Future};
use std::task::{Context, Poll};

use tokio_postgres::tls::NoTlsStream;
use tokio_postgres::{AsyncMessage, Connection, NoTls, Socket};
use uuid::Uuid;

use crate::StoreError;

/// The channel the trigger notifies.
pub const APPENDS_CHANNEL: &str = "umpire_appends";

/// A game's log has grown to `version`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appended {
    pub game_id: Uuid,
    pub version: u64,
}

impl Appended {
    /// Reads the trigger's payload, `<game id> <version>`.
    pub fn parse(payload: &str) -> Option<Appended> {
        let (game_id, version) = payload.split_once(' ')?;
        Some(Appended {
            game_id: game_id.parse().ok()?,
            version: version.parse().ok()?,
        })
    }
}

/// One connection listening on [`APPENDS_CHANNEL`]: an instance needs one,
/// not one per stream. Its reader polls the connection itself: no task of
/// its own and no queue between them, so that an announcement wakes one
/// task, not two (every append of a followed game is announced to it,
/// this instance's own included). Announcements that arrive while the
/// reader is busy wait in the socket, as they would in a queue.
pub struct AppendListener {
    connection: Connection<Socket, NoTlsStream>,
    // Dropping the client (and the connection) closes the connection.
    _client: tokio_postgres::Client,
}

impl AppendListener {
    /// Connects to `database_url` (its own connection, outside any pool:
    /// notifications arrive on the connection that listens) and listens.
    /// What is announced before it returns is not kept: read the log once
    /// it listens, as after every reconnection.
    pub async fn connect(database_url: &str) -> Result<AppendListener, StoreError> {
        let (client, mut connection) = tokio_postgres::connect(database_url, NoTls).await?;
        {
            let listen = format!("LISTEN {APPENDS_CHANNEL}");
            let mut listening = std::pin::pin!(client.batch_execute(&listen));
            // The command's answer comes through the connection: it is
            // polled alongside (an announcement read meanwhile is let go).
            poll_fn(|cx| {
                while let Poll::Ready(read) = next_announcement(&mut connection, cx) {
                    read?;
                }
                listening.as_mut().poll(cx).map_err(StoreError::from)
            })
            .await?;
        }
        Ok(AppendListener {
            connection,
            _client: client,
        })
    }

    /// The next announcement; an error when the connection is lost (listen
    /// again, then read the log: announcements made meanwhile are gone).
    /// Cancel-safe: an announcement is taken from the connection only when
    /// it is returned.
    pub async fn next(&mut self) -> Result<Appended, StoreError> {
        poll_fn(|cx| next_announcement(&mut self.connection, cx)).await
    }
}

/// Polls `connection` for its next announcement of an append. Anything else
/// on it is not ours to act on: at worst it would make a stream read the
/// log in vain.
fn next_announcement(
    connection: &mut Connection<Socket, NoTlsStream>,
    cx: &mut Context<'_>,
) -> Poll<Result<Appended, StoreError>> {
    loop {
        match connection.poll_message(cx) {
            Poll::Ready(Some(Ok(AsyncMessage::Notification(notification)))) => {
                if let Some(appended) = Appended::parse(notification.payload()) {
                    return Poll::Ready(Ok(appended));
                }
            }
            Poll::Ready(Some(Ok(_))) => {}
            Poll::Ready(Some(Err(error))) => return Poll::Ready(Err(StoreError::from(error))),
            Poll::Ready(None) => {
                return Poll::Ready(Err(StoreError::Unavailable(
                    "the listening connection closed".into(),
                )))
            }
            Poll::Pending => return Poll::Pending,
        }
    }
}

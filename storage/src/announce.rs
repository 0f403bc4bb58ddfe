//! Announcements of appends (migrations/V5): after each committed statement
//! that appends events, PostgreSQL notifies the channel
//! [`APPENDS_CHANNEL`] with `<game id> <version>` for each game it extended.
//! Several service instances on one database learn of each other's appends
//! this way. An announcement carries no event: it only says "read the log
//! after N", and the log stays the source of truth.

use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, NoTls};
use uuid::Uuid;

use crate::StoreError;

/// The channel the trigger notifies.
pub const APPENDS_CHANNEL: &str = "umpire_appends";

/// Notifications held between the connection and the listener's reader. The
/// reader only updates a version per game, so this never fills in practice;
/// if it did, the connection would stop reading and PostgreSQL would queue.
const BUFFERED: usize = 1024;

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
/// not one per stream.
pub struct AppendListener {
    notifications: mpsc::Receiver<Result<Appended, StoreError>>,
    // Dropping the client closes the connection.
    _client: tokio_postgres::Client,
}

impl AppendListener {
    /// Connects to `database_url` (its own connection, outside any pool:
    /// notifications arrive on the connection that listens) and listens.
    pub async fn connect(database_url: &str) -> Result<AppendListener, StoreError> {
        let (client, mut connection) = tokio_postgres::connect(database_url, NoTls).await?;
        let (sender, notifications) = mpsc::channel(BUFFERED);
        tokio::spawn(async move {
            let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
            while let Some(message) = messages.next().await {
                let forwarded = match message {
                    // Anything else on the channel is not ours to act on: at
                    // worst it would make a stream read the log in vain.
                    Ok(AsyncMessage::Notification(notification)) => {
                        match Appended::parse(notification.payload()) {
                            Some(appended) => Ok(appended),
                            None => continue,
                        }
                    }
                    Ok(_) => continue,
                    Err(error) => Err(StoreError::from(error)),
                };
                let failed = forwarded.is_err();
                if sender.send(forwarded).await.is_err() || failed {
                    return;
                }
            }
            let _ = sender
                .send(Err(StoreError::Unavailable(
                    "the listening connection closed".into(),
                )))
                .await;
        });
        client
            .batch_execute(&format!("LISTEN {APPENDS_CHANNEL}"))
            .await?;
        Ok(AppendListener {
            notifications,
            _client: client,
        })
    }

    /// The next announcement; an error when the connection is lost (listen
    /// again, then read the log: announcements made meanwhile are gone).
    pub async fn next(&mut self) -> Result<Appended, StoreError> {
        self.notifications.recv().await.unwrap_or_else(|| {
            Err(StoreError::Unavailable(
                "the listening connection closed".into(),
            ))
        })
    }
}

//! The instance's one listening connection: every append the store
//! announces (through any instance) wakes this instance's streams of that
//! game; when the connection drops, it is made again, with a growing pause,
//! and every stream reads the log in case it missed an announcement.
//!
//! It listens only while the instance has a stream open, and for
//! [`LISTEN_IDLE`] after the last closes (or always, when standbys are
//! configured: their probes measure lag against the newest append
//! announced). PostgreSQL delivers every append's announcement to every
//! listening connection, so an instance serving no stream would otherwise
//! be woken by every append of every instance, its own included, at a cost
//! to every action. A stream opened before the connection
//! listens is not at risk: the connection, once listening, wakes every
//! stream to read the log, as after a reconnection.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::watch;
use umpire_storage::AppendListener;

use super::hub::{Hub, Live, Source};
use crate::background::Background;
use crate::metrics::Metrics;
use crate::replicas::Replicas;

/// Waiting between attempts to listen again, doubling up to the maximum.
const RELISTEN_FIRST: Duration = Duration::from_millis(100);
const RELISTEN_MAX: Duration = Duration::from_secs(5);

/// How long the connection keeps listening once no stream is open: a page
/// that reloads opens its stream again well within it.
pub(super) const LISTEN_IDLE: Duration = Duration::from_secs(30);

impl Live {
    /// Listens for appends on one connection to `database_url` for as long
    /// as this instance lives, listening again after every loss.
    /// Each append is also noted for the standbys' probes (their lag in
    /// versions).
    /// It stops, its connection closed, when the service stops.
    pub(crate) fn listen(
        &self,
        background: &Background,
        database_url: String,
        metrics: Metrics,
        replicas: Replicas,
    ) {
        let hub = Arc::downgrade(&self.hub);
        background.spawn_until_stopped(listen(hub, database_url, metrics, replicas));
    }
}

async fn listen(hub: Weak<Hub>, database_url: String, metrics: Metrics, replicas: Replicas) {
    // The standbys' probes need every append's version, streams or not.
    let always = !replicas.is_empty();
    let Some(mut followed) = hub.upgrade().map(|live| live.followed.subscribe()) else {
        return;
    };
    let mut pause = RELISTEN_FIRST;
    loop {
        // Not listening: wait for a stream (the hub gone, the instance is).
        if !always && followed.wait_for(|any| *any).await.is_err() {
            return;
        }
        match AppendListener::connect(&database_url).await {
            Ok(mut listener) => {
                let Some(live) = hub.upgrade() else { return };
                metrics.listener_reconnects.inc();
                live.listening.store(true, Ordering::Relaxed);
                live.signal_all(|signal| signal.relistens += 1);
                drop(live);
                pause = RELISTEN_FIRST;
                let mut idle: Pin<Box<dyn Future<Output = ()> + Send>> = match always {
                    true => Box::pin(std::future::pending()),
                    false => Box::pin(unfollowed_for(followed.clone(), LISTEN_IDLE)),
                };
                let lost = loop {
                    let next = tokio::select! {
                        // In this order, without drawing lots for it.
                        biased;
                        next = listener.next() => next,
                        () = &mut idle => break false,
                    };
                    let Some(live) = hub.upgrade() else { return };
                    match next {
                        Ok(appended) => {
                            replicas.note_append(appended.game_id, appended.version);
                            live.announce(appended, Source::Store)
                        }
                        Err(error) => {
                            tracing::warn!(%error, "lost the connection listening for appends; listening again");
                            break true;
                        }
                    }
                };
                // The connection closes with `listener`.
                drop(listener);
                let Some(live) = hub.upgrade() else { return };
                live.listening.store(false, Ordering::Relaxed);
                if !lost {
                    // Idle: listened to again as soon as a stream opens.
                    continue;
                }
            }
            Err(error) => {
                if hub.strong_count() == 0 {
                    return;
                }
                tracing::warn!(%error, retry_in = ?pause, "cannot listen for appends");
            }
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(RELISTEN_MAX);
    }
}

/// Resolves once no game has been followed for `grace` on end, or the hub
/// is gone; never while a game is followed.
async fn unfollowed_for(mut followed: watch::Receiver<bool>, grace: Duration) {
    loop {
        if followed.wait_for(|any| !*any).await.is_err() {
            return;
        }
        match tokio::time::timeout(grace, followed.wait_for(|any| *any)).await {
            // Followed again within the grace: wait for the next lull.
            Ok(Ok(_)) => continue,
            Ok(Err(_)) | Err(_) => return,
        }
    }
}

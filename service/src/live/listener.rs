//! The instance's one listening connection: every append the store
//! announces (through any instance) wakes this instance's streams of that
//! game; when the connection drops, it is made again, with a growing pause,
//! and every stream reads the log in case it missed an announcement.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use umpire_storage::AppendListener;

use super::hub::{Hub, Live, Source};
use crate::metrics::Metrics;
use crate::replicas::Replicas;

/// Waiting between attempts to listen again, doubling up to the maximum.
const RELISTEN_FIRST: Duration = Duration::from_millis(100);
const RELISTEN_MAX: Duration = Duration::from_secs(5);

impl Live {
    /// Listens for appends on one connection to `database_url` for as long
    /// as this instance lives, listening again after every loss.
    /// Each append is also noted for the standbys' probes (their lag in
    /// versions).
    pub(crate) fn listen(&self, database_url: String, metrics: Metrics, replicas: Replicas) {
        let hub = Arc::downgrade(&self.hub);
        tokio::spawn(listen(hub, database_url, metrics, replicas));
    }
}

async fn listen(hub: Weak<Hub>, database_url: String, metrics: Metrics, replicas: Replicas) {
    let mut pause = RELISTEN_FIRST;
    loop {
        match AppendListener::connect(&database_url).await {
            Ok(mut listener) => {
                let Some(live) = hub.upgrade() else { return };
                metrics.listener_reconnects.inc();
                live.listening.store(true, Ordering::Relaxed);
                live.signal_all(|signal| signal.relistens += 1);
                drop(live);
                pause = RELISTEN_FIRST;
                loop {
                    let next = listener.next().await;
                    let Some(live) = hub.upgrade() else { return };
                    match next {
                        Ok(appended) => {
                            replicas.note_append(appended.game_id, appended.version);
                            live.announce(appended, Source::Store)
                        }
                        Err(error) => {
                            live.listening.store(false, Ordering::Relaxed);
                            tracing::warn!(%error, "lost the connection listening for appends; listening again");
                            break;
                        }
                    }
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

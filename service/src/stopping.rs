//! How an instance stops, once told to (`umpire serve` on SIGINT or
//! SIGTERM): its live streams end first, so that none holds the HTTP
//! server's stop; once the server has stopped, its work in the background
//! (`background.rs`) ends and its pools close, so that nothing is left
//! using a database that may go next.

use crate::games::GameService;

impl GameService {
    /// Ends every live stream (`Woken::Stopping`): first, when the server
    /// stops, so that no stream holds it.
    pub fn end_streams(&self) {
        self.live.end_streams();
    }

    /// Stops the instance's work in the background (the timekeeper after
    /// the look it is at, the listener, the probes) and closes its pools:
    /// once the HTTP server has stopped, nothing uses the database after
    /// this, which may then go (`background.rs`).
    pub async fn stop(&self) {
        self.background.stop().await;
        self.store.pool().close();
        self.replicas.close();
    }
}

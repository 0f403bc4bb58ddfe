//! SIGINT and SIGTERM while `umpire serve` starts, before the HTTP server
//! (which handles them itself, finishing requests in flight) is up.
//!
//! Without this, a signal during the private cluster's initialisation was
//! lost: a shell starts a background job with SIGINT ignored, and a kill
//! mid-initdb left a half-made cluster running on its own. Listening from
//! the start means a signal is always seen, and startup ends at the next
//! step with the cluster it started stopped.

use tokio::signal::unix::{signal, Signal, SignalKind};

/// Which stop signal arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopSignal {
    Interrupt,
    Terminate,
}

impl StopSignal {
    pub fn name(self) -> &'static str {
        match self {
            StopSignal::Interrupt => "SIGINT",
            StopSignal::Terminate => "SIGTERM",
        }
    }

    /// The shell's convention for a process ended by a signal: 128 + its
    /// number (130 for SIGINT, 143 for SIGTERM).
    pub fn exit_status(self) -> u8 {
        match self {
            StopSignal::Interrupt => 128 + 2,
            StopSignal::Terminate => 128 + 15,
        }
    }
}

/// Listens for SIGINT and SIGTERM from creation on. Keep it alive for as
/// long as startup runs: once listened for, a signal no longer ends the
/// process by itself.
pub struct StopSignals {
    interrupt: Signal,
    terminate: Signal,
}

impl StopSignals {
    pub fn listen() -> std::io::Result<StopSignals> {
        Ok(StopSignals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    /// The next stop signal.
    pub async fn received(&mut self) -> StopSignal {
        tokio::select! {
            _ = self.interrupt.recv() => StopSignal::Interrupt,
            _ = self.terminate.recv() => StopSignal::Terminate,
        }
    }
}

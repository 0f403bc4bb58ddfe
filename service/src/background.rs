//! The instance's work in the background (the timekeeper, the connection
//! listening for appends, the standbys' probes), stopped in order when the
//! service stops: each task is told, and awaited. `GameService::stop` then
//! closes the pools, so that nothing is left using a database that may go
//! away next (`umpire serve` stops its private cluster right after): a
//! task still reading when its database stopped logged a warning for what
//! was only the end of the run.

use std::future::Future;
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The background tasks of one instance, shared by its clones.
#[derive(Clone)]
pub(crate) struct Background {
    inner: Arc<Inner>,
}

struct Inner {
    /// `true` once the service stops.
    stop: watch::Sender<bool>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl Default for Background {
    fn default() -> Self {
        Background {
            inner: Arc::new(Inner {
                stop: watch::Sender::new(false),
                tasks: Mutex::default(),
            }),
        }
    }
}

/// What a background task is told by: the service stopping.
pub(crate) struct Stopping(watch::Receiver<bool>);

impl Stopping {
    pub(crate) fn is_stopping(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once the service stops (or is gone).
    pub(crate) async fn stopped(&mut self) {
        let _ = self.0.wait_for(|stop| *stop).await;
    }
}

impl Background {
    /// Runs `task` on the runtime; it is handed a [`Stopping`] and must end
    /// soon after the service stops (between two steps of its work).
    pub(crate) fn spawn<T, F>(&self, task: T)
    where
        T: FnOnce(Stopping) -> F,
        F: Future<Output = ()> + Send + 'static,
    {
        let stopping = Stopping(self.inner.stop.subscribe());
        let handle = tokio::spawn(task(stopping));
        let mut tasks = self.inner.tasks.lock();
        tasks.retain(|task| !task.is_finished());
        tasks.push(handle);
    }

    /// Runs `task` until it ends or the service stops, when it is dropped
    /// wherever it waits: for a task that only reads (a listener, a probe).
    pub(crate) fn spawn_until_stopped(&self, task: impl Future<Output = ()> + Send + 'static) {
        self.spawn(|mut stopping| async move {
            tokio::select! {
                () = task => {}
                () = stopping.stopped() => {}
            }
        });
    }

    /// Tells every task to stop and waits until each has ended.
    pub(crate) async fn stop(&self) {
        self.inner.stop.send_replace(true);
        let tasks = std::mem::take(&mut *self.inner.tasks.lock());
        for task in tasks {
            // A task that panicked said so when it did.
            let _ = task.await;
        }
    }
}

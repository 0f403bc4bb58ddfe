//! The one import of many archives, for `POST /v1/games/import` with JSON
//! Lines and for `umpire import`: each archive's text parsed and validated by
//! replay, the valid games stored a batch at a time (one transaction each;
//! every game of a batch alone when the batch fails, so that one game's fault
//! is its own answer and the others are stored), and one [`ImportLine`] per
//! archive, in the order the archives were read, as each batch is decided.
//!
//! Reading and replaying are blocking work and storing is async, each on its
//! own side: the texts are read and validated on a blocking thread (replays
//! on rayon's threads, handed on in input order by
//! `umpire_archive::pipeline::run_ordered`), which passes each validated
//! archive to the storing task through a bounded channel. No thread waits on
//! the runtime, and the runtime never waits on a replay.

use std::sync::Arc;

use serde::Serialize;
use tokio::sync::mpsc;
use umpire_archive::pipeline::run_ordered;
use umpire_archive::reading::ArchiveText;
use umpire_archive::Archive;
use umpire_domain::Registry;
use umpire_storage::EventStore;
use utoipa::ToSchema;

use crate::archives::{prepare_import, store_prepared, PreparedImport};
use crate::error::{ErrorBody, ServiceError};
use crate::games::GameService;
use crate::model::CreatedGame;

// The same line answers `umpire import`, where `source` is `path:N`; the
// description below is the HTTP answer's, as the OpenAPI document shows it.
/// One line of the answer to a JSON Lines import: where the archive was in
/// the body, and its new tokens or why it was refused.
#[derive(Debug, Serialize, ToSchema)]
pub struct ImportLine {
    /// `body:N`, the line of the body.
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported: Option<CreatedGame>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<ErrorBody>,
}

impl ImportLine {
    /// The line for an archive read at `source`: its game, or why not.
    pub fn of(source: String, outcome: Result<CreatedGame, ErrorBody>) -> Self {
        let (imported, refused) = match outcome {
            Ok(created) => (Some(created), None),
            Err(refusal) => (None, Some(refusal)),
        };
        ImportLine {
            source,
            imported,
            refused,
        }
    }
}

/// How many archives an import stored and refused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ImportTotals {
    pub imported: u64,
    pub refused: u64,
}

/// How much an import holds at once: archives being validated, validated
/// ones waiting for the storing task, and the batch being gathered. With
/// the archives' size, this is what an import holds, whatever the size of
/// its input.
#[derive(Debug, Clone, Copy)]
pub struct ImportPace {
    /// Archives replayed at once on rayon's threads (1: one after another).
    pub validating: usize,
    /// Validated archives waiting for the storing task.
    pub queued: usize,
    /// A batch is stored once it holds this many archives (refused ones
    /// included: their lines wait for the batch, to keep the input's order)…
    pub batch_archives: usize,
    /// …or this many events.
    pub batch_events: usize,
}

/// Archives per batch: one transaction for up to this many games.
const BATCH_ARCHIVES: usize = 64;
/// Events per batch (see [`BATCH_ARCHIVES`]).
const BATCH_EVENTS: usize = 16_384;

impl ImportPace {
    /// One archive replayed at a time, as a request body is (its memory is
    /// charged as a multiple of the body, measured this way).
    pub fn one_at_a_time() -> Self {
        ImportPace {
            validating: 1,
            queued: 1,
            batch_archives: BATCH_ARCHIVES,
            batch_events: BATCH_EVENTS,
        }
    }

    /// Replays on every core, as `umpire import` does.
    pub fn on_every_core() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        ImportPace {
            validating: 2 * cores,
            queued: 16,
            batch_archives: BATCH_ARCHIVES,
            batch_events: BATCH_EVENTS,
        }
    }
}

/// An archive read and judged: ready to store, or why not.
struct Validated {
    source: String,
    outcome: Result<PreparedImport, ErrorBody>,
}

/// Parses and validates one archive's text (see [`prepare_import`]).
fn validate<T: AsRef<str>>(registry: &Registry, text: ArchiveText<T>) -> Validated {
    let outcome = serde_json::from_str::<Archive>(text.text.as_ref())
        .map_err(|e| ServiceError::invalid("invalid_archive", format!("Not an archive: {e}.")))
        .and_then(|archive| prepare_import(registry, archive))
        .map_err(|refusal| refusal.body());
    Validated {
        source: text.source,
        outcome,
    }
}

/// Imports every archive of `texts` (see the module's documentation),
/// sending one line per archive to `lines`, in the order of `texts`. Stops
/// early, with what it did so far, when `lines` is closed: the answer's
/// reader left. `texts` is read on a blocking thread.
pub async fn import_archives<T, I>(
    store: &EventStore,
    registry: Arc<Registry>,
    texts: I,
    pace: ImportPace,
    lines: mpsc::Sender<ImportLine>,
) -> Result<ImportTotals, ServiceError>
where
    T: AsRef<str> + Send + 'static,
    I: IntoIterator<Item = ArchiveText<T>> + Send + 'static,
    I::IntoIter: Send,
{
    let (validated, mut to_store) = mpsc::channel::<Validated>(pace.queued.max(1));
    let validating = tokio::task::spawn_blocking(move || {
        // Fails only when the storing task stopped, which then says why.
        let _ = run_ordered(
            texts.into_iter(),
            pace.validating,
            |text| validate(&registry, text),
            |checked| {
                validated
                    .blocking_send(checked)
                    .map_err(|_| std::io::Error::other("the import stopped"))
            },
        );
    });
    let mut totals = ImportTotals::default();
    let mut batch = Vec::new();
    let mut batch_events = 0;
    loop {
        let next = to_store.recv().await;
        let end = next.is_none();
        if let Some(checked) = next {
            if let Ok(prepared) = &checked.outcome {
                batch_events += prepared.events();
            }
            batch.push(checked);
        }
        let full = batch.len() >= pace.batch_archives || batch_events >= pace.batch_events;
        if (full || end) && !batch.is_empty() {
            batch_events = 0;
            for line in store_batch(store, std::mem::take(&mut batch)).await {
                if line.imported.is_some() {
                    totals.imported += 1;
                } else {
                    totals.refused += 1;
                }
                if lines.send(line).await.is_err() {
                    // The validating thread stops at its next hand-over.
                    drop(to_store);
                    return finish(validating, totals).await;
                }
            }
        }
        if end {
            return finish(validating, totals).await;
        }
    }
}

async fn finish(
    validating: tokio::task::JoinHandle<()>,
    totals: ImportTotals,
) -> Result<ImportTotals, ServiceError> {
    validating
        .await
        .map_err(|e| ServiceError::Internal(format!("validating archives failed: {e}")))?;
    Ok(totals)
}

/// Stores the valid archives of a batch (see [`store_together_or_alone`]);
/// the batch's lines, in its order.
async fn store_batch(store: &EventStore, batch: Vec<Validated>) -> Vec<ImportLine> {
    let mut prepared = Vec::new();
    let mut refusals = Vec::with_capacity(batch.len());
    let mut sources = Vec::with_capacity(batch.len());
    for checked in batch {
        sources.push(checked.source);
        match checked.outcome {
            Ok(game) => {
                prepared.push(game);
                refusals.push(None);
            }
            Err(refusal) => refusals.push(Some(refusal)),
        }
    }
    let outcomes = store_together_or_alone(store, &prepared).await;
    for (game, outcome) in prepared.iter().zip(&outcomes) {
        if outcome.is_ok() {
            game.keep_snapshots(store).await;
        }
    }
    let mut stored = outcomes.into_iter();
    sources
        .into_iter()
        .zip(refusals)
        .map(|(source, refusal)| match refusal {
            Some(refusal) => ImportLine::of(source, Err(refusal)),
            None => {
                let outcome = stored.next().unwrap_or_else(|| Err(answered_nothing()));
                ImportLine::of(source, outcome.map_err(|e| e.body()))
            }
        })
        .collect()
}

fn answered_nothing() -> ServiceError {
    ServiceError::Internal("an import answered nothing".into())
}

/// Stores games together, in one transaction; if that fails, each on its
/// own, so that one game's failure is its own answer and the others are
/// stored. Each game's answer, in order.
async fn store_together_or_alone(
    store: &EventStore,
    prepared: &[PreparedImport],
) -> Vec<Result<CreatedGame, ServiceError>> {
    if prepared.is_empty() {
        return Vec::new();
    }
    match store_prepared(store, prepared).await {
        Ok(outcomes) => outcomes,
        Err(error) if prepared.len() > 1 => {
            tracing::warn!(%error, games = prepared.len(), "a batch of imports failed; storing its games one by one");
            let mut outcomes = Vec::with_capacity(prepared.len());
            for game in prepared {
                outcomes.push(
                    store_prepared(store, std::slice::from_ref(game))
                        .await
                        .and_then(|mut one| one.pop().unwrap_or_else(|| Err(answered_nothing()))),
                );
            }
            outcomes
        }
        Err(error) => vec![Err(error)],
    }
}

impl GameService {
    /// Imports archives already read (a request's body) into this
    /// service's store (see [`import_archives`]).
    pub async fn import_archives<T: AsRef<str> + Send + 'static>(
        &self,
        texts: Vec<ArchiveText<T>>,
        pace: ImportPace,
        lines: mpsc::Sender<ImportLine>,
    ) -> Result<ImportTotals, ServiceError> {
        import_archives(&self.store, self.registry.clone(), texts, pace, lines).await
    }
}

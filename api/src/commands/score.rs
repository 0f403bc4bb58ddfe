//! `umpire score`: archives from files, directories, standard input or the
//! database scored in parallel on rayon's threads, rows streamed in input
//! order (`umpire_archive::pipeline`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use futures_util::StreamExt;
use serde::Serialize;
use umpire_archive::pipeline::{self, Progress, ScoreSettings};
use umpire_archive::ChainCheck;
use umpire_archive::{OutputFormat, RowWriter, MAX_ARCHIVE_BYTES};

use super::counted;
use super::progress::{games_message, progress_bar, Counting};

/// Settings of `umpire score`.
pub struct ScoreCommand {
    pub inputs: Vec<String>,
    pub database: Option<String>,
    pub format: OutputFormat,
    pub finished_only: bool,
    /// Whether each archive's hash chain is checked before it is scored.
    pub chain: ChainCheck,
    pub threads: Option<usize>,
    pub out: Option<PathBuf>,
    /// A progress bar on standard error, when it is a terminal.
    pub progress: bool,
}

/// What a scoring run did, for its closing line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreSummary {
    pub totals: Progress,
    pub elapsed: Duration,
}

/// The summary as `umpire score --json` prints it.
#[derive(Serialize)]
struct SummaryFields {
    games: u64,
    errors: u64,
    bytes: u64,
    seconds: f64,
}

impl ScoreSummary {
    /// `umpire score: 2 games (1 error), 0.1 MB in 0.05s: …`.
    pub fn line(&self) -> String {
        let totals = self.totals;
        let seconds = self.elapsed.as_secs_f64().max(1e-9);
        format!(
            "umpire score: {} ({}), {:.1} MB in {:.2}s: {:.0} games/s, {:.1} MB/s",
            counted(totals.games, "game", "games"),
            counted(totals.errors, "error", "errors"),
            totals.bytes as f64 / 1e6,
            seconds,
            totals.games as f64 / seconds,
            totals.bytes as f64 / 1e6 / seconds
        )
    }

    /// The same as one JSON object.
    pub fn json(&self) -> String {
        serde_json::json!(SummaryFields {
            games: self.totals.games,
            errors: self.totals.errors,
            bytes: self.totals.bytes,
            seconds: self.elapsed.as_secs_f64(),
        })
        .to_string()
    }
}

/// `umpire score`: scores archives from files, directories, standard input
/// or the database, in parallel, streaming.
pub async fn score(command: ScoreCommand) -> anyhow::Result<ScoreSummary> {
    if let Some(threads) = command.threads {
        // Only the first configuration takes; later calls keep the pool.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global();
    }
    let started = Instant::now();
    let settings = ScoreSettings {
        finished_only: command.finished_only,
        max_archive_bytes: MAX_ARCHIVE_BYTES,
        chain: command.chain,
    };
    let totals = match &command.database {
        Some(url) => score_database(url, &command, settings).await?,
        None => {
            let inputs = super::expand(&command.inputs)?;
            let total_bytes: Option<u64> = inputs
                .iter()
                .map(|input| {
                    let path = input.path()?;
                    std::fs::symlink_metadata(path).ok().map(|m| m.len())
                })
                .sum();
            let format = command.format;
            let out = command.out.clone();
            let shown = command.progress;
            tokio::task::spawn_blocking(move || {
                let registry = umpire_games::registry();
                let mut writer = RowWriter::new(format, super::output(out.as_deref())?)?;
                let bar = progress_bar(total_bytes, Counting::Bytes, shown);
                let totals = pipeline::score_inputs(
                    &registry,
                    &inputs,
                    settings,
                    &mut writer,
                    &mut |progress| {
                        bar.set_position(progress.bytes);
                        bar.set_message(games_message(progress.games, started));
                    },
                )?;
                bar.finish_and_clear();
                Ok::<_, anyhow::Error>(totals)
            })
            .await
            .context("the scoring task failed")??
        }
    };
    Ok(ScoreSummary {
        totals,
        elapsed: started.elapsed(),
    })
}

/// Games per batch handed from the database reader to the scorers.
const DB_BATCH_GAMES: usize = 64;

async fn score_database(
    url: &str,
    command: &ScoreCommand,
    settings: ScoreSettings,
) -> anyhow::Result<Progress> {
    let store = super::store(url, 4)?;
    let stream = store.stream_games().await.context("reading the database")?;
    let (sender, receiver) = std::sync::mpsc::sync_channel::<Vec<umpire_storage::BulkGame>>(
        rayon::current_num_threads() * 2,
    );
    let format = command.format;
    let out = command.out.clone();
    let shown = command.progress;
    let scorer = tokio::task::spawn_blocking(move || {
        let registry = umpire_games::registry();
        let mut writer = RowWriter::new(format, super::output(out.as_deref())?)?;
        let bar = progress_bar(None, Counting::Games, shown);
        let mut totals = Progress::default();
        pipeline::run_ordered(
            receiver.into_iter(),
            rayon::current_num_threads() * 2,
            |batch| {
                let bytes: usize = batch.iter().map(|g| g.json_bytes()).sum();
                let rows: Vec<_> = batch
                    .iter()
                    .map(|game| {
                        umpire_archive::score_events(
                            &registry,
                            &game.game_id.to_string(),
                            &game.game,
                            &game.options,
                            game.payloads.iter().map(String::as_str),
                            "db",
                        )
                    })
                    .collect();
                (rows, bytes)
            },
            |(rows, bytes)| {
                pipeline::write_rows(&rows, settings, &mut writer, &mut totals)?;
                totals.bytes += bytes as u64;
                bar.set_position(totals.games);
                Ok(())
            },
        )?;
        writer.flush()?;
        bar.finish_and_clear();
        Ok::<_, anyhow::Error>(totals)
    });
    let mut stream = std::pin::pin!(stream);
    let mut batch = Vec::with_capacity(DB_BATCH_GAMES);
    let mut read_error = None;
    while let Some(game) = stream.next().await {
        match game {
            Ok(game) => batch.push(game),
            Err(error) => {
                read_error = Some(error);
                break;
            }
        }
        if batch.len() == DB_BATCH_GAMES {
            let full = std::mem::replace(&mut batch, Vec::with_capacity(DB_BATCH_GAMES));
            // The scorers stopped (an output error): stop reading.
            if tokio::task::block_in_place(|| sender.send(full)).is_err() {
                break;
            }
        }
    }
    if !batch.is_empty() {
        let _ = tokio::task::block_in_place(|| sender.send(batch));
    }
    drop(sender);
    let totals = scorer.await.context("the scoring task failed")??;
    match read_error {
        Some(error) => Err(error).context("reading the database"),
        None => Ok(totals),
    }
}

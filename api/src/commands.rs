//! The archive commands of `umpire` (`audit`, `export`, `import`, `simulate`,
//! `score`, `what-if`): files, progress and output around the service's
//! archive functions (`umpire_service::archives`).

use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;
use umpire_archive::pipeline::{self, Input, Progress, ScoreSettings};
use umpire_archive::{Archive, OutputFormat, RowWriter};
use umpire_service::archives::{
    archive_of, export_game, prepare_import, store_prepared, PreparedImport,
};
use umpire_service::model::CreatedGame;
use umpire_service::{ErrorBody, ServiceError};
use umpire_storage::EventStore;

use uuid::Uuid;

// ---------------------------------------------------------------------------
// The command line.

/// How a command ended, beyond failing outright.
#[derive(Debug, PartialEq, Eq)]
pub enum Done {
    All,
    /// Some rows or archives failed; each is reported in the output.
    InPart,
}

fn pretty(value: &impl serde::Serialize) -> Result<String, String> {
    serde_json::to_string_pretty(value).map_err(|e| e.to_string())
}

fn parse_archive(text: &str) -> Result<Archive, String> {
    Archive::from_json(text).map_err(|e| e.to_string())
}

/// The largest archive a command reads: the one the HTTP endpoints accept.
use umpire_archive::MAX_ARCHIVE_BYTES;

/// The files the inputs name (directories walked, links in them skipped:
/// each is a WARN line on standard error).
fn expand(inputs: &[String]) -> Result<Vec<Input>, String> {
    let inputs: Vec<Input> = inputs.iter().map(|i| Input::parse(i)).collect();
    let expanded = pipeline::expand_inputs(&inputs).map_err(|e| e.to_string())?;
    for link in &expanded.skipped_links {
        tracing::warn!(
            path = %link.display(),
            "skipped a symbolic link inside a directory: links there are not followed \
             (name the file it points to to read it)"
        );
    }
    Ok(expanded.files)
}

/// How many archives a file holds, as far as is known when each is handed
/// over: all of a file read whole, none of one read a line at a time.
type ArchivesInFile = Option<usize>;

/// The archives of one file for `audit` and `what-if`: one JSON document
/// (pretty-printed or not), or JSON Lines of them, each handed to `each`
/// with how many the file holds. A file of at most one archive's
/// size is read whole; a longer one can only be JSON Lines, and is read a
/// line at a time (each at most one archive's size), so that its size
/// does not matter.
fn each_archive_in_file(
    path: &Path,
    each: &mut dyn FnMut(Archive, ArchivesInFile) -> Result<(), String>,
) -> Result<(), String> {
    let input = Input::parse(&path.to_string_lossy());
    let failed = |e: std::io::Error| format!("reading {}: {e}", path.display());
    let mut reader = umpire_archive::inputs::open(&input).map_err(|e| e.to_string())?;
    let mut head = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(&mut reader, MAX_ARCHIVE_BYTES as u64 + 1),
        &mut head,
    )
    .map_err(failed)?;
    if head.len() <= MAX_ARCHIVE_BYTES {
        let text = String::from_utf8(head).map_err(|e| format!("{}: {e}", path.display()))?;
        let archives = parse_archives(path, &text)?;
        let count = archives.len();
        return archives
            .into_iter()
            .try_for_each(|archive| each(archive, Some(count)));
    }
    let source: std::sync::Arc<str> = std::sync::Arc::from(path.display().to_string());
    let mut outcome = Ok(());
    let read = umpire_archive::inputs::read_lines(
        source,
        std::io::Read::chain(std::io::Cursor::new(head), reader),
        MAX_ARCHIVE_BYTES,
        &mut |chunk| {
            let text = String::from_utf8_lossy(&chunk.bytes);
            for (offset, line) in text.split('\n').enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let line_number = chunk.first_line + offset as u64;
                outcome = parse_archive(line)
                    .map_err(|e| format!("{}:{line_number}: {e}", path.display()))
                    .and_then(|archive| each(archive, None));
                if outcome.is_err() {
                    return Err(std::io::Error::other("stopped"));
                }
            }
            Ok(())
        },
    );
    outcome?;
    read.map_err(|e| e.to_string())
}

/// The archives of a file: one JSON document, or JSON Lines of them.
fn parse_archives(path: &Path, text: &str) -> Result<Vec<Archive>, String> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .collect();
    if lines.len() <= 1 {
        return parse_archive(text)
            .map(|archive| vec![archive])
            .map_err(|e| format!("{}: {e}", path.display()));
    }
    match parse_archive(text) {
        // One archive spread over several lines (pretty-printed).
        Ok(archive) => Ok(vec![archive]),
        Err(_) => lines
            .into_iter()
            .map(|(index, line)| {
                parse_archive(line).map_err(|e| format!("{}:{}: {e}", path.display(), index + 1))
            })
            .collect(),
    }
}

/// Where an archive for `audit` and `what-if` comes from.
pub enum ArchiveSource {
    Database { url: String, game_id: Uuid },
    File(PathBuf),
}

/// Calls `each` with every archive the source names, as it is read: a
/// stored game, or a file's archives; with how many there are, if known.
async fn each_archive(
    source: &ArchiveSource,
    each: &mut dyn FnMut(Archive, ArchivesInFile) -> Result<(), String>,
) -> Result<(), String> {
    match source {
        ArchiveSource::File(path) => each_archive_in_file(path, each),
        ArchiveSource::Database { url, game_id } => {
            let store =
                EventStore::new(umpire_storage::connect(url, 2).map_err(|e| e.to_string())?);
            let archive = export_game(&store, *game_id)
                .await
                .map_err(|e| format!("game {game_id}: {}", e.body().message))?;
            each(archive, Some(1))
        }
    }
}

/// The one archive a source names; JSON Lines of several is an error here.
async fn load_one(source: &ArchiveSource) -> Result<Archive, String> {
    let mut archives = Vec::new();
    each_archive(source, &mut |archive, count| {
        if count != Some(1) {
            let ArchiveSource::File(path) = source else {
                unreachable!("a stored game is one archive")
            };
            let count = count.map_or("several".to_string(), |count| count.to_string());
            return Err(format!(
                "{} holds {count} archives (JSON Lines); this command takes one: split the file or pick a line",
                path.display(),
            ));
        }
        archives.push(archive);
        Ok(())
    })
    .await?;
    archives
        .pop()
        .ok_or_else(|| "no archive was read".to_string())
}

/// `umpire audit`: prints the audit report as JSON (one line per archive
/// for JSON Lines); fails when a log diverges or a chain is broken.
pub async fn audit(source: ArchiveSource) -> Result<(), String> {
    let registry = umpire_games::registry();
    let mut audited = 0usize;
    let mut failed = 0usize;
    let mut several = false;
    each_archive(&source, &mut |archive, count| {
        several = count != Some(1);
        let report = umpire_archive::audit(&registry, &archive)
            .map_err(|d| format!("game {} cannot be audited: {d}", archive.game_id))?;
        if several {
            println!(
                "{}",
                serde_json::to_string(&report).map_err(|e| e.to_string())?
            );
        } else {
            println!("{}", pretty(&report)?);
        }
        audited += 1;
        if let Some(failure) = &report.closing.first_failure {
            failed += 1;
            eprintln!(
                "umpire audit: the log of game {} does not hold: {failure}",
                archive.game_id
            );
        }
        Ok(())
    })
    .await?;
    match failed {
        0 => Ok(()),
        1 if !several => Err("the log does not hold".into()),
        _ => Err(format!("{failed} of {audited} games' logs do not hold")),
    }
}

/// `umpire what-if`: re-runs a game's actions under patched options.
pub async fn what_if(source: ArchiveSource, options_patch: &str) -> Result<(), String> {
    let archive = load_one(&source).await?;
    let patch: Value =
        serde_json::from_str(options_patch).map_err(|e| format!("--options is not JSON: {e}"))?;
    let registry = umpire_games::registry();
    let report = umpire_archive::what_if(&registry, &archive, &patch).map_err(|e| e.to_string())?;
    println!("{}", pretty(&report)?);
    Ok(())
}

fn output(path: Option<&Path>) -> Result<Box<dyn Write + Send>, String> {
    Ok(match path {
        Some(path) if path.as_os_str() != "-" => Box::new(BufWriter::with_capacity(
            1 << 20,
            std::fs::File::create(path).map_err(|e| format!("creating {}: {e}", path.display()))?,
        )),
        _ => Box::new(BufWriter::with_capacity(1 << 20, std::io::stdout())),
    })
}

/// `umpire export`: the named games (or all, streamed) as JSON Lines.
pub async fn export(
    url: &str,
    game_ids: &[Uuid],
    all: bool,
    out: Option<&Path>,
) -> Result<(), String> {
    let store = EventStore::new(umpire_storage::connect(url, 4).map_err(|e| e.to_string())?);
    let mut out = output(out)?;
    let mut write = |archive: &Archive| -> Result<(), String> {
        out.write_all(archive.to_json_line().as_bytes())
            .and_then(|_| out.write_all(b"\n"))
            .map_err(|e| e.to_string())
    };
    if all {
        let stream = store.stream_archives().await.map_err(|e| e.to_string())?;
        let mut stream = std::pin::pin!(stream);
        while let Some(game) = stream.next().await {
            let game = game.map_err(|e| e.to_string())?;
            write(&archive_of(&game.record, game.events, game.rejections))?;
        }
    }
    for game_id in game_ids {
        let archive = export_game(&store, *game_id)
            .await
            .map_err(|e| format!("game {game_id}: {e}"))?;
        write(&archive)?;
    }
    out.flush().map_err(|e| e.to_string())
}

/// `umpire import`: validates and stores every archive of the inputs; prints
/// one JSON line per game (its new tokens, or why it was refused).
pub async fn import(url: &str, inputs: &[String]) -> Result<Done, String> {
    let store = EventStore::new(umpire_storage::connect(url, 4).map_err(|e| e.to_string())?);
    let registry = umpire_games::registry();
    let mut refused_count = 0usize;
    let mut imported = 0usize;
    let files = expand(inputs)?;
    // A reader thread hands over one document at a time, so importing a
    // file of any size holds only a chunk of it in memory.
    let (sender, receiver) = std::sync::mpsc::sync_channel::<std::io::Result<(String, String)>>(16);
    let reader = std::thread::spawn(move || {
        for input in &files {
            let outcome = pipeline::read_chunks(input, MAX_ARCHIVE_BYTES, &mut |chunk| {
                let text = String::from_utf8_lossy(&chunk.bytes);
                let stopped = |_| std::io::Error::other("import stopped");
                if chunk.whole_document {
                    return sender
                        .send(Ok((format!("{}:1", chunk.source), text.into_owned())))
                        .map_err(stopped);
                }
                for (offset, line) in text.split('\n').enumerate() {
                    if !line.trim().is_empty() {
                        let source =
                            format!("{}:{}", chunk.source, chunk.first_line + offset as u64);
                        sender
                            .send(Ok((source, line.to_string())))
                            .map_err(stopped)?;
                    }
                }
                Ok(())
            });
            if let Err(error) = outcome {
                let _ = sender.send(Err(error));
                return;
            }
        }
    });
    // Validation (a whole replay per game) on every core; the results are
    // stored a batch at a time, each batch one transaction.
    let receiver = Arc::new(Mutex::new(receiver));
    let (validated, mut results) = tokio::sync::mpsc::channel::<Validated>(IMPORT_QUEUED);
    let registry = Arc::new(registry);
    let validators: Vec<_> = (0..std::thread::available_parallelism().map_or(2, |n| n.get()))
        .map(|_| {
            let receiver = receiver.clone();
            let validated = validated.clone();
            let registry = registry.clone();
            std::thread::spawn(move || loop {
                let next = receiver.lock().unwrap_or_else(|e| e.into_inner()).recv();
                let Ok(next) = next else { return };
                let outcome = next
                    .map_err(|e| e.to_string())
                    .map(|(source, text)| (source, validate(&registry, &text)));
                if validated.blocking_send(outcome).is_err() {
                    return;
                }
            })
        })
        .collect();
    drop(validated);
    let mut report = |source: String, outcome: Result<CreatedGame, ErrorBody>| {
        let line = match outcome {
            Ok(created) => {
                imported += 1;
                serde_json::json!({"source": source, "imported": created})
            }
            Err(error) => {
                refused_count += 1;
                serde_json::json!({"source": source, "refused": error})
            }
        };
        println!("{line}");
    };
    let mut batch: Vec<(String, PreparedImport)> = Vec::new();
    let mut batch_events = 0usize;
    let mut failure = None;
    loop {
        let next = results.recv().await;
        let end = next.is_none();
        match next {
            Some(Ok((source, Ok(prepared)))) => {
                batch_events += prepared.events();
                batch.push((source, prepared));
            }
            Some(Ok((source, Err(refusal)))) => report(source, Err(*refusal)),
            Some(Err(error)) => {
                failure = Some(error);
                break;
            }
            None => {}
        }
        if end || batch.len() >= IMPORT_BATCH_GAMES || batch_events >= IMPORT_BATCH_EVENTS {
            if !batch.is_empty() {
                for (source, outcome) in store_batch(&store, std::mem::take(&mut batch)).await {
                    report(source, outcome);
                }
            }
            batch_events = 0;
        }
        if end {
            break;
        }
    }
    drop(results);
    for validator in validators {
        let _ = validator.join();
    }
    if let Some(error) = failure {
        return Err(error);
    }
    let _ = reader.join();
    eprintln!("umpire import: {imported} imported, {refused_count} refused");
    Ok(if refused_count > 0 {
        Done::InPart
    } else {
        Done::All
    })
}

/// Games stored per transaction by `umpire import`: a batch is written when
/// it holds this many games or [`IMPORT_BATCH_EVENTS`] events. With the
/// validated games waiting for their batch ([`IMPORT_QUEUED`]), this is what
/// import holds in memory, whatever the size of its input.
const IMPORT_BATCH_GAMES: usize = 64;
/// Events stored per transaction by `umpire import` (see [`IMPORT_BATCH_GAMES`]).
const IMPORT_BATCH_EVENTS: usize = 16_384;
/// Validated games waiting for a batch: the validators wait while this many
/// are.
const IMPORT_QUEUED: usize = 16;

/// A validated archive, or why it was refused, by where it was read; or a
/// failure to read the inputs.
type Validated = Result<(String, Result<PreparedImport, Box<ErrorBody>>), String>;

/// One archive's text, parsed and validated by replay.
fn validate(
    registry: &umpire_domain::Registry,
    text: &str,
) -> Result<PreparedImport, Box<ErrorBody>> {
    let archive = parse_archive(text).map_err(|message| {
        Box::new(ErrorBody {
            code: "invalid_archive".into(),
            message,
            rule: None,
            details: None,
        })
    })?;
    prepare_import(registry, archive).map_err(|e| Box::new(e.body()))
}

/// Stores a batch in one transaction; if that fails, each game on its own,
/// so that one game's failure is its own line and the others are stored.
async fn store_batch(
    store: &EventStore,
    batch: Vec<(String, PreparedImport)>,
) -> Vec<(String, Result<CreatedGame, ErrorBody>)> {
    let (sources, prepared): (Vec<String>, Vec<PreparedImport>) = batch.into_iter().unzip();
    let outcomes = match store_prepared(store, &prepared).await {
        Ok(outcomes) => outcomes,
        Err(error) if prepared.len() > 1 => {
            tracing::warn!(%error, games = prepared.len(), "a batch of imports failed; storing its games one by one");
            let mut outcomes = Vec::with_capacity(prepared.len());
            for game in &prepared {
                outcomes.push(
                    match store_prepared(store, std::slice::from_ref(game)).await {
                        Ok(mut one) => one.pop().unwrap_or_else(|| {
                            Err(ServiceError::Internal("an import answered nothing".into()))
                        }),
                        Err(error) => Err(error),
                    },
                );
            }
            outcomes
        }
        Err(error) => vec![Err(error)],
    };
    sources
        .into_iter()
        .zip(outcomes)
        .map(|(source, outcome)| (source, outcome.map_err(|e| e.body())))
        .collect()
}

/// `umpire simulate`: random legal games as JSON Lines.
pub fn simulate(
    game: &str,
    count: u64,
    seed: u64,
    options: &str,
    max_actions: usize,
    out: Option<&Path>,
) -> Result<(), String> {
    let registry = umpire_games::registry();
    let options: Value =
        serde_json::from_str(options).map_err(|e| format!("--options is not JSON: {e}"))?;
    let games: Vec<String> = if game == "all" {
        registry.ids().map(str::to_string).collect()
    } else {
        registry.get(game).map_err(|e| e.to_string())?;
        vec![game.to_string()]
    };
    let mut out = output(out)?;
    let bar = progress_bar(Some(count * games.len() as u64), Counting::Games);
    for game in &games {
        umpire_archive::simulate_to(
            &registry,
            &umpire_archive::SimulationRun {
                game,
                options: &options,
                count,
                seed,
                max_actions,
            },
            &mut out,
            |done| bar.inc(done),
        )
        .map_err(|e| e.to_string())?;
    }
    bar.finish_and_clear();
    Ok(())
}

/// What a progress bar counts.
#[derive(Clone, Copy)]
enum Counting {
    Games,
    /// Bytes read; the games scored so far go in the bar's message.
    Bytes,
}

/// A progress bar on standard error, when it is a terminal: counts, rates
/// (MB/s for bytes, games/s) and the time left when the total is known.
fn progress_bar(total: Option<u64>, counting: Counting) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let template = match (counting, total) {
        (Counting::Games, Some(_)) => "{bar:30} {pos}/{len} games, {per_sec}, eta {eta}",
        (Counting::Games, None) => "{spinner} {pos} games, {per_sec}",
        (Counting::Bytes, Some(_)) => {
            "{bar:30} {decimal_bytes}/{decimal_total_bytes}, {decimal_bytes_per_sec}, {msg}, eta {eta}"
        }
        (Counting::Bytes, None) => "{spinner} {decimal_bytes}, {decimal_bytes_per_sec}, {msg}",
    };
    let bar = match total {
        Some(total) => ProgressBar::new(total),
        None => ProgressBar::no_length(),
    };
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// `N games, R games/s` for a bar counting bytes.
fn games_message(games: u64, since: Instant) -> String {
    let seconds = since.elapsed().as_secs_f64().max(1e-3);
    format!("{games} games, {:.0} games/s", games as f64 / seconds)
}

/// Settings of `umpire score`.
pub struct ScoreCommand {
    pub inputs: Vec<String>,
    pub database: Option<String>,
    pub format: OutputFormat,
    pub finished_only: bool,
    pub threads: Option<usize>,
    pub out: Option<PathBuf>,
}

fn summary_line(totals: Progress, elapsed: Duration) -> String {
    let seconds = elapsed.as_secs_f64().max(1e-9);
    format!(
        "umpire score: {} games ({} errors), {:.1} MB in {:.2}s: {:.0} games/s, {:.1} MB/s",
        totals.games,
        totals.errors,
        totals.bytes as f64 / 1e6,
        seconds,
        totals.games as f64 / seconds,
        totals.bytes as f64 / 1e6 / seconds
    )
}

/// `umpire score`: scores archives from files, directories, standard input
/// or the database, in parallel, streaming.
pub async fn score(command: ScoreCommand) -> Result<Done, String> {
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
    };
    let totals = match &command.database {
        Some(url) => score_database(url, &command, settings).await?,
        None => {
            let inputs = expand(&command.inputs)?;
            let total_bytes: Option<u64> = inputs
                .iter()
                .map(|input| {
                    let path = input.path()?;
                    std::fs::symlink_metadata(path).ok().map(|m| m.len())
                })
                .sum();
            let format = command.format;
            let out = command.out.clone();
            tokio::task::spawn_blocking(move || {
                let registry = umpire_games::registry();
                let mut writer =
                    RowWriter::new(format, output(out.as_deref())?).map_err(|e| e.to_string())?;
                let bar = progress_bar(total_bytes, Counting::Bytes);
                let totals = pipeline::score_inputs(
                    &registry,
                    &inputs,
                    settings,
                    &mut writer,
                    &mut |progress| {
                        bar.set_position(progress.bytes);
                        bar.set_message(games_message(progress.games, started));
                    },
                )
                .map_err(|e| e.to_string())?;
                bar.finish_and_clear();
                Ok::<_, String>(totals)
            })
            .await
            .map_err(|e| e.to_string())??
        }
    };
    eprintln!("{}", summary_line(totals, started.elapsed()));
    Ok(if totals.errors > 0 {
        Done::InPart
    } else {
        Done::All
    })
}

/// Games per batch handed from the database reader to the scorers.
const DB_BATCH_GAMES: usize = 64;

async fn score_database(
    url: &str,
    command: &ScoreCommand,
    settings: ScoreSettings,
) -> Result<Progress, String> {
    let store = EventStore::new(umpire_storage::connect(url, 4).map_err(|e| e.to_string())?);
    let stream = store.stream_games().await.map_err(|e| e.to_string())?;
    let (sender, receiver) = std::sync::mpsc::sync_channel::<Vec<umpire_storage::BulkGame>>(
        rayon::current_num_threads() * 2,
    );
    let format = command.format;
    let out = command.out.clone();
    let scorer = tokio::task::spawn_blocking(move || {
        let registry = umpire_games::registry();
        let mut writer =
            RowWriter::new(format, output(out.as_deref())?).map_err(|e| e.to_string())?;
        let bar = progress_bar(None, Counting::Games);
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
        )
        .map_err(|e| e.to_string())?;
        writer.flush().map_err(|e| e.to_string())?;
        bar.finish_and_clear();
        Ok::<_, String>(totals)
    });
    let mut stream = std::pin::pin!(stream);
    let mut batch = Vec::with_capacity(DB_BATCH_GAMES);
    let mut read_error = None;
    while let Some(game) = stream.next().await {
        match game {
            Ok(game) => batch.push(game),
            Err(error) => {
                read_error = Some(error.to_string());
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
    let totals = scorer.await.map_err(|e| e.to_string())??;
    match read_error {
        Some(error) => Err(format!("reading the database: {error}")),
        None => Ok(totals),
    }
}

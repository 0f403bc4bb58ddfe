//! Streaming bulk scoring: inputs are read in chunks of whole lines, scored in
//! parallel on rayon's pool and written in input order.
//!
//! Memory stays flat however large the input: at most `in_flight` chunks
//! (about a MiB each, or one line of at most the archive limit,
//! [`crate::MAX_ARCHIVE_BYTES`]) are read but not yet written at any time. The reading
//! and writing thread is not a pool thread, so every core scores.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::mpsc;

use umpire_domain::Registry;

use crate::reading::{chunks_of, each_archive_in_chunk, Place};
use crate::score::{score_archive, ChainCheck, RowWriter, ScoreRow};

pub use crate::inputs::{
    expand_inputs, read_chunks, Chunk, ExpandedInputs, Input, SkipReason, Skipped, CHUNK_BYTES,
};

/// Counters for the progress bar and the closing summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub games: u64,
    pub errors: u64,
    pub bytes: u64,
}

/// Scores every archive of a chunk, in order, checking each one's hash
/// chain first unless `chain` says to trust it.
pub fn score_chunk(registry: &Registry, chunk: &Chunk, chain: ChainCheck) -> Vec<ScoreRow> {
    let text = match std::str::from_utf8(&chunk.bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(&chunk.bytes),
    };
    let mut rows = Vec::new();
    let scored = each_archive_in_chunk(chunk, &text, |archive, line| {
        let source = Place::Line(line).label(&chunk.source);
        rows.push(score_archive(registry, archive, &source, chain));
        Ok::<_, std::convert::Infallible>(())
    });
    match scored {
        Ok(()) => rows,
    }
}

/// Lines at the start of an input which, when none of them is even a JSON
/// object, stop bulk scoring: the input is not archives (a README, a CSV
/// file) and would otherwise be one error row per line.
pub const NOT_ARCHIVES_AFTER: usize = 3;

/// The error for an input whose first lines say it is not archives: the
/// first chunk of an input whose first [`NOT_ARCHIVES_AFTER`] lines (not
/// counting blank ones) are none of them a JSON object. An input with fewer
/// lines, or with an archive among its first, is read on: each line that is
/// not an archive is then its own error row.
pub fn refuse_if_not_archives(chunk: &Chunk) -> std::io::Result<()> {
    if chunk.first_line != 1 || chunk.whole_document {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&chunk.bytes);
    let first: Vec<(usize, &str)> = text
        .split('\n')
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .take(NOT_ARCHIVES_AFTER)
        .collect();
    if first.len() < NOT_ARCHIVES_AFTER || first.iter().any(|(_, line)| is_json_object(line)) {
        return Ok(());
    }
    let numbers: Vec<String> = first
        .iter()
        .map(|(index, _)| (index + 1).to_string())
        .collect();
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "{}: not archives: lines {} are not JSON objects (an archive is one JSON object, \
             or a line of JSON Lines); nothing of it was scored",
            chunk.source,
            numbers.join(", ")
        ),
    ))
}

/// Whether `line` is one JSON object (of any shape).
fn is_json_object(line: &str) -> bool {
    line.trim_start().starts_with('{')
        && serde_json::from_str::<serde::de::IgnoredAny>(line).is_ok()
}

/// Runs `work` over `items` on rayon's pool with at most `in_flight` items
/// outstanding, handing results to `sink` in the order of `items`.
pub fn run_ordered<T, R, W, S>(
    items: impl Iterator<Item = T>,
    in_flight: usize,
    work: W,
    mut sink: S,
) -> std::io::Result<()>
where
    T: Send,
    R: Send,
    W: Fn(T) -> R + Sync,
    S: FnMut(R) -> std::io::Result<()>,
{
    let in_flight = in_flight.max(1);
    let (sender, receiver) = mpsc::channel::<(u64, R)>();
    rayon::in_place_scope(|scope| {
        let work = &work;
        let mut pending: BTreeMap<u64, R> = BTreeMap::new();
        let mut next_to_write = 0u64;
        let mut submitted = 0u64;
        let mut drain = |block: bool,
                         pending: &mut BTreeMap<u64, R>,
                         next_to_write: &mut u64|
         -> std::io::Result<()> {
            if block {
                let (index, result) = receiver.recv().map_err(std::io::Error::other)?;
                pending.insert(index, result);
            }
            while let Ok((index, result)) = receiver.try_recv() {
                pending.insert(index, result);
            }
            while let Some(result) = pending.remove(next_to_write) {
                sink(result)?;
                *next_to_write += 1;
            }
            Ok(())
        };
        for item in items {
            while submitted - next_to_write - pending.len() as u64 >= in_flight as u64
                || submitted - next_to_write >= 4 * in_flight as u64
            {
                drain(true, &mut pending, &mut next_to_write)?;
            }
            let sender = sender.clone();
            let index = submitted;
            scope.spawn(move |_| {
                // The receiver outlives the scope; a send cannot fail.
                let _ = sender.send((index, work(item)));
            });
            submitted += 1;
            drain(false, &mut pending, &mut next_to_write)?;
        }
        while next_to_write < submitted {
            drain(true, &mut pending, &mut next_to_write)?;
        }
        Ok(())
    })
}

/// What bulk scoring should keep and how.
#[derive(Debug, Clone, Copy)]
pub struct ScoreSettings {
    /// Drop rows of games that are not finished (error rows are kept).
    pub finished_only: bool,
    /// The longest line (or `.json` file) read: longer is an error naming
    /// the file and line, as HTTP refuses a larger body.
    pub max_archive_bytes: usize,
    /// Whether each archive's hash chain is checked before it is scored.
    pub chain: ChainCheck,
}

impl Default for ScoreSettings {
    fn default() -> Self {
        ScoreSettings {
            finished_only: false,
            max_archive_bytes: crate::inputs::MAX_ARCHIVE_BYTES,
            chain: ChainCheck::default(),
        }
    }
}

/// Scores every archive of `inputs` into `writer`; `progress` is called
/// after each chunk with running totals.
pub fn score_inputs<W: Write>(
    registry: &Registry,
    inputs: &[Input],
    settings: ScoreSettings,
    writer: &mut RowWriter<W>,
    progress: &mut dyn FnMut(Progress),
) -> std::io::Result<Progress> {
    let files = expand_inputs(inputs)?.files;
    let receiver = chunks_of(files, settings.max_archive_bytes, 4, refuse_if_not_archives);
    let mut totals = Progress::default();
    let mut read_error = None;
    let chunks = receiver.into_iter().map_while(|chunk| match chunk {
        Ok(chunk) => Some(chunk),
        Err(error) => {
            read_error = Some(error);
            None
        }
    });
    let threads = rayon::current_num_threads();
    let outcome = run_ordered(
        chunks,
        threads * 2,
        |chunk| {
            let bytes = chunk.bytes.len() as u64;
            (score_chunk(registry, &chunk, settings.chain), bytes)
        },
        |(rows, bytes)| {
            write_rows(&rows, settings, writer, &mut totals)?;
            totals.bytes += bytes;
            progress(totals);
            Ok(())
        },
    );
    outcome?;
    if let Some(error) = read_error {
        return Err(error);
    }
    writer.flush()?;
    Ok(totals)
}

/// Writes scored rows, applying the settings and counting.
pub fn write_rows<W: Write>(
    rows: &[ScoreRow],
    settings: ScoreSettings,
    writer: &mut RowWriter<W>,
    totals: &mut Progress,
) -> std::io::Result<()> {
    for row in rows {
        totals.games += 1;
        if row.error.is_some() {
            totals.errors += 1;
        } else if settings.finished_only && row.is_final == Some(false) {
            continue;
        }
        writer.write(row)?;
    }
    Ok(())
}

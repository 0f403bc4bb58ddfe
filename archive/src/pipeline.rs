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

use crate::score::{score_archive_text, RowWriter, ScoreRow};

pub use crate::inputs::{expand_inputs, read_chunks, Chunk, ExpandedInputs, Input, CHUNK_BYTES};

/// Counters for the progress bar and the closing summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub games: u64,
    pub errors: u64,
    pub bytes: u64,
}

/// Scores every archive of a chunk, in order.
pub fn score_chunk(registry: &Registry, chunk: &Chunk) -> Vec<ScoreRow> {
    let text = match std::str::from_utf8(&chunk.bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(&chunk.bytes),
    };
    if chunk.whole_document {
        return vec![score_archive_text(
            registry,
            &text,
            &format!("{}:1", chunk.source),
        )];
    }
    let mut rows = Vec::new();
    for (offset, line) in text.split('\n').enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let source = format!("{}:{}", chunk.source, chunk.first_line + offset as u64);
        rows.push(score_archive_text(registry, line, &source));
    }
    rows
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
}

impl Default for ScoreSettings {
    fn default() -> Self {
        ScoreSettings {
            finished_only: false,
            max_archive_bytes: crate::inputs::MAX_ARCHIVE_BYTES,
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
    let max_line_bytes = settings.max_archive_bytes;
    let (sender, receiver) = mpsc::sync_channel::<std::io::Result<Chunk>>(4);
    let reader = std::thread::spawn(move || {
        for input in &files {
            let outcome = read_chunks(input, max_line_bytes, &mut |chunk| {
                sender
                    .send(Ok(chunk))
                    .map_err(|_| std::io::Error::other("scoring stopped"))
            });
            if let Err(error) = outcome {
                let _ = sender.send(Err(error));
                return;
            }
        }
    });
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
            (score_chunk(registry, &chunk), bytes)
        },
        |(rows, bytes)| {
            write_rows(&rows, settings, writer, &mut totals)?;
            totals.bytes += bytes;
            progress(totals);
            Ok(())
        },
    );
    let _ = reader.join();
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

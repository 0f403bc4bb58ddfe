//! Streaming bulk scoring: inputs are read in chunks of whole lines, scored in
//! parallel on rayon's pool and written in input order.
//!
//! Memory stays flat however large the input: at most `in_flight` chunks
//! (about a MiB each) are read but not yet written at any time. The reading
//! and writing thread is not a pool thread, so every core scores.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Arc;

use umpire_domain::Registry;

use crate::score::{score_archive_text, RowWriter, ScoreRow};

/// Bytes read per chunk (rounded to whole lines).
pub const CHUNK_BYTES: usize = 1 << 20;

/// Where archives come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A file (`.json`: one archive document; anything else: JSON Lines) or a
    /// directory, walked recursively for `.json`, `.jsonl` and `.ndjson`.
    Path(PathBuf),
    /// Standard input, as JSON Lines.
    Stdin,
}

impl Input {
    pub fn parse(text: &str) -> Input {
        if text == "-" {
            Input::Stdin
        } else {
            Input::Path(PathBuf::from(text))
        }
    }
}

/// A piece of input: whole lines, or one whole document.
#[derive(Debug)]
pub struct Chunk {
    pub source: Arc<str>,
    /// The line number (1-based) of the chunk's first line.
    pub first_line: u64,
    pub bytes: Vec<u8>,
    /// True for a `.json` file: the chunk is one archive, not lines.
    pub whole_document: bool,
}

/// Counters for the progress bar and the closing summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub games: u64,
    pub errors: u64,
    pub bytes: u64,
}

/// Expands inputs into the files to read, in a stable order. Every file is
/// checked to be readable before any is read, and an error names the path,
/// so that a mistyped name fails at once rather than after a header or a
/// first batch of rows.
pub fn expand_inputs(inputs: &[Input]) -> std::io::Result<Vec<Input>> {
    fn named(path: &Path) -> impl FnOnce(std::io::Error) -> std::io::Error + '_ {
        move |error| std::io::Error::new(error.kind(), format!("{}: {error}", path.display()))
    }
    let mut out = Vec::new();
    for input in inputs {
        match input {
            Input::Stdin => out.push(Input::Stdin),
            Input::Path(path) if path.is_dir() => {
                let mut files = Vec::new();
                walk(path, &mut files).map_err(named(path))?;
                files.sort();
                out.extend(files.into_iter().map(Input::Path));
            }
            Input::Path(path) => {
                std::fs::File::open(path).map_err(named(path))?;
                out.push(Input::Path(path.clone()));
            }
        }
    }
    Ok(out)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, files)?;
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("json" | "jsonl" | "ndjson")
        ) {
            files.push(path);
        }
    }
    Ok(())
}

/// Reads one input as chunks, handing each to `emit`. A `.json` file is one
/// document; everything else is split at line ends.
pub fn read_chunks(
    input: &Input,
    emit: &mut dyn FnMut(Chunk) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let (source, mut reader, whole): (Arc<str>, Box<dyn Read>, bool) = match input {
        Input::Stdin => (Arc::from("-"), Box::new(std::io::stdin().lock()), false),
        Input::Path(path) => {
            let whole = path.extension().and_then(|e| e.to_str()) == Some("json");
            (
                Arc::from(path.display().to_string()),
                Box::new(File::open(path)?),
                whole,
            )
        }
    };
    if whole {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes)?;
        return emit(Chunk {
            source,
            first_line: 1,
            bytes,
            whole_document: true,
        });
    }
    let mut line = 1u64;
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let mut buffer = std::mem::take(&mut carry);
        let start = buffer.len();
        buffer.resize(start + CHUNK_BYTES, 0);
        let read = read_full(&mut reader, &mut buffer[start..])?;
        buffer.truncate(start + read);
        if read == 0 {
            if !buffer.is_empty() {
                emit(Chunk {
                    source: source.clone(),
                    first_line: line,
                    bytes: buffer,
                    whole_document: false,
                })?;
            }
            return Ok(());
        }
        match memchr::memrchr(b'\n', &buffer) {
            Some(end) => {
                carry = buffer[end + 1..].to_vec();
                buffer.truncate(end + 1);
                let lines = memchr::memchr_iter(b'\n', &buffer).count() as u64;
                emit(Chunk {
                    source: source.clone(),
                    first_line: line,
                    bytes: buffer,
                    whole_document: false,
                })?;
                line += lines;
            }
            // A line longer than a chunk: keep reading until it ends.
            None => carry = buffer,
        }
    }
}

fn read_full(reader: &mut dyn Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
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
#[derive(Debug, Clone, Copy, Default)]
pub struct ScoreSettings {
    /// Drop rows of games that are not finished (error rows are kept).
    pub finished_only: bool,
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
    let files = expand_inputs(inputs)?;
    let (sender, receiver) = mpsc::sync_channel::<std::io::Result<Chunk>>(4);
    let reader = std::thread::spawn(move || {
        for input in &files {
            let outcome = read_chunks(input, &mut |chunk| {
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

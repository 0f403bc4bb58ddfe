//! The archive commands of `umpire` (`audit`, `export`, `import`, `simulate`,
//! `score`, `what-if`): files, progress and output around the service's
//! archive functions (`umpire_service::archives`, `umpire_service::import`)
//! and the archive crate's reading and scoring. Data goes to standard output
//! (or `--out`); summaries, progress and logs to standard error.

mod audit;
mod import;
mod progress;
mod score;
mod simulate;

pub use audit::{audit, what_if, ArchiveSource};
pub use import::{export, import};
pub use score::{score, ScoreCommand, ScoreSummary};
pub use simulate::{simulate, SimulateCommand, SimulateSummary};

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use umpire_archive::pipeline::{self, Input};

/// How a command ended, beyond failing outright.
#[derive(Debug, PartialEq, Eq)]
pub enum Done {
    All,
    /// Some rows or archives failed; each is reported in the output.
    InPart,
}

impl Done {
    /// [`Done::InPart`] when any of the rows or archives failed.
    pub fn unless_failed(failed: u64) -> Done {
        if failed > 0 {
            Done::InPart
        } else {
            Done::All
        }
    }
}

/// `1 game`, `2 games`: a count and its noun, singular or plural.
pub fn counted(count: u64, one: &str, many: &str) -> String {
    if count == 1 {
        format!("1 {one}")
    } else {
        format!("{count} {many}")
    }
}

/// Where a command writes its data: the file `path` names, or standard
/// output for none or `-`.
fn output(path: Option<&Path>) -> anyhow::Result<Box<dyn Write + Send>> {
    Ok(match path {
        Some(path) if path.as_os_str() != "-" => Box::new(BufWriter::with_capacity(
            1 << 20,
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
        )),
        _ => Box::new(BufWriter::with_capacity(1 << 20, std::io::stdout())),
    })
}

/// The files the inputs name, directories walked. What a walk left out
/// (links, FIFOs and devices, entries it could not open) is one WARN line
/// for the whole run, with a count of each kind; `-v` lists every entry.
fn expand(inputs: &[String]) -> anyhow::Result<Vec<Input>> {
    let inputs: Vec<Input> = inputs.iter().map(|i| Input::parse(i)).collect();
    let expanded = pipeline::expand_inputs(&inputs)?;
    if let Some(summary) = skipped_summary(&expanded.skipped) {
        tracing::warn!("{summary}");
    }
    for skipped in &expanded.skipped {
        tracing::info!(path = %skipped.path.display(), "skipped: {}", skipped.reason);
    }
    Ok(expanded.files)
}

/// `skipped 3 symbolic links and 1 unreadable entry inside the directories
/// given …`, or nothing when nothing was skipped.
fn skipped_summary(skipped: &[pipeline::Skipped]) -> Option<String> {
    use pipeline::SkipReason;
    if skipped.is_empty() {
        return None;
    }
    let count = |kind: fn(&SkipReason) -> bool| {
        skipped.iter().filter(|entry| kind(&entry.reason)).count() as u64
    };
    let links = count(|reason| matches!(reason, SkipReason::SymbolicLink));
    let special = count(|reason| matches!(reason, SkipReason::NotARegularFile(_)));
    let unreadable = count(|reason| matches!(reason, SkipReason::Unreadable(_)));
    let parts: Vec<String> = [
        (links, "symbolic link", "symbolic links"),
        (
            special,
            "FIFO, socket or device",
            "FIFOs, sockets or devices",
        ),
        (unreadable, "unreadable entry", "unreadable entries"),
    ]
    .into_iter()
    .filter(|(count, _, _)| *count > 0)
    .map(|(count, one, many)| counted(count, one, many))
    .collect();
    let listed = match parts.as_slice() {
        [only] => only.clone(),
        [first @ .., last] => format!("{} and {last}", first.join(", ")),
        [] => unreachable!("something was skipped"),
    };
    Some(format!(
        "skipped {listed} inside the directories given: links are not followed and only \
         regular files are read (-v lists each)"
    ))
}

/// How long a command waits for a database connection: a batch job waits
/// for a busy database where a request would rather be answered 503.
const COMMAND_POOL_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// A store on `url` with a pool of `connections`.
fn store(url: &str, connections: usize) -> anyhow::Result<umpire_storage::EventStore> {
    let pool = umpire_storage::connect_with(
        url,
        connections,
        umpire_storage::PoolTimeouts::waiting(COMMAND_POOL_WAIT),
    )
    .context("connecting to the database")?;
    Ok(umpire_storage::EventStore::new(pool))
}

/// Writes `bytes` to standard output, returning an error (never panicking,
/// as `print!` does) when it is closed.
pub(crate) fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(bytes)?;
    stdout.flush()
}

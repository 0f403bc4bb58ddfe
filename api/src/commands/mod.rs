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
pub use simulate::simulate;

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

/// The files the inputs name (directories walked, links in them skipped:
/// each is a WARN line on standard error).
fn expand(inputs: &[String]) -> anyhow::Result<Vec<Input>> {
    let inputs: Vec<Input> = inputs.iter().map(|i| Input::parse(i)).collect();
    let expanded = pipeline::expand_inputs(&inputs)?;
    for link in &expanded.skipped_links {
        tracing::warn!(
            path = %link.display(),
            "skipped a symbolic link inside a directory: links there are not followed \
             (name the file it points to to read it)"
        );
    }
    Ok(expanded.files)
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

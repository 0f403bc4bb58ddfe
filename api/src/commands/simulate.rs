//! `umpire simulate`: random legal games as archives, made on every core.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Serialize;
use serde_json::Value;
use umpire_archive::SimulationTotals;

use super::counted;
use super::progress::{progress_bar, Counting};

/// Settings of `umpire simulate`.
pub struct SimulateCommand<'a> {
    /// A registered game's name, or `all` for every one.
    pub game: &'a str,
    /// Games of each game named.
    pub count: u64,
    pub seed: u64,
    pub options: &'a Value,
    pub max_actions: usize,
    pub out: Option<&'a Path>,
    /// A progress bar on standard error, when it is a terminal.
    pub progress: bool,
}

/// What a simulation run did, for its closing line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimulateSummary {
    /// What was written, and on how many threads.
    pub totals: SimulationTotals,
    pub elapsed: Duration,
}

/// The summary as `umpire simulate --json` prints it.
#[derive(Serialize)]
struct SummaryFields {
    games: u64,
    events: u64,
    bytes: u64,
    seconds: f64,
    threads: u64,
}

impl SimulateSummary {
    /// `umpire simulate: 8 games, 812 events, 0.1 MB in 0.05s: …`.
    pub fn line(&self) -> String {
        let totals = self.totals;
        let seconds = self.elapsed.as_secs_f64().max(1e-9);
        format!(
            "umpire simulate: {}, {}, {:.1} MB in {:.2}s on {}: {:.0} games/s",
            counted(totals.games, "game", "games"),
            counted(totals.events, "event", "events"),
            totals.bytes as f64 / 1e6,
            seconds,
            counted(totals.threads, "thread", "threads"),
            totals.games as f64 / seconds,
        )
    }

    /// The same as one JSON object.
    pub fn json(&self) -> String {
        serde_json::json!(SummaryFields {
            games: self.totals.games,
            events: self.totals.events,
            bytes: self.totals.bytes,
            seconds: self.elapsed.as_secs_f64(),
            threads: self.totals.threads,
        })
        .to_string()
    }
}

/// `umpire simulate`: random legal games as JSON Lines (`count` of each
/// game named; `all` names every registered game), made in parallel on
/// rayon's pool and written in order.
pub fn simulate(command: SimulateCommand<'_>) -> anyhow::Result<SimulateSummary> {
    let started = Instant::now();
    let registry = umpire_games::registry();
    let games: Vec<&str> = if command.game == "all" {
        registry.ids().collect()
    } else {
        vec![registry.get(command.game)?.id()]
    };
    let mut out = super::output(command.out)?;
    let bar = progress_bar(
        Some(command.count * games.len() as u64),
        Counting::Games,
        command.progress,
    );
    let totals = umpire_archive::simulate_to(
        &registry,
        &umpire_archive::SimulationRun {
            games: &games,
            options: command.options,
            count: command.count,
            seed: command.seed,
            max_actions: command.max_actions,
        },
        &mut out,
        |done| bar.inc(done),
    )
    .context("writing the games")?;
    bar.finish_and_clear();
    Ok(SimulateSummary {
        totals,
        elapsed: started.elapsed(),
    })
}

//! `umpire simulate`: random legal games as archives.

use std::path::Path;

use anyhow::Context;
use serde_json::Value;

use super::progress::{progress_bar, Counting};

/// `umpire simulate`: random legal games as JSON Lines (`count` of each
/// game named; `all` names every registered game).
pub fn simulate(
    game: &str,
    count: u64,
    seed: u64,
    options: &Value,
    max_actions: usize,
    out: Option<&Path>,
    progress: bool,
) -> anyhow::Result<()> {
    let registry = umpire_games::registry();
    let games: Vec<String> = if game == "all" {
        registry.ids().map(str::to_string).collect()
    } else {
        registry.get(game)?;
        vec![game.to_string()]
    };
    let mut out = super::output(out)?;
    let bar = progress_bar(Some(count * games.len() as u64), Counting::Games, progress);
    for game in &games {
        umpire_archive::simulate_to(
            &registry,
            &umpire_archive::SimulationRun {
                game,
                options,
                count,
                seed,
                max_actions,
            },
            &mut out,
            |done| bar.inc(done),
        )
        .with_context(|| format!("simulating {game}"))?;
    }
    bar.finish_and_clear();
    Ok(())
}

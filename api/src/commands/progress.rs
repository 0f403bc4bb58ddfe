//! Progress bars on standard error for the long commands (`score`,
//! `simulate`), drawn only when standard error is a terminal.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// What a progress bar counts.
#[derive(Clone, Copy)]
pub(super) enum Counting {
    Games,
    /// Bytes read; the games scored so far go in the bar's message.
    Bytes,
}

/// A progress bar on standard error, when it is a terminal and `shown`
/// (not `--quiet`): counts, rates (MB/s for bytes, games/s) and the time
/// left when the total is known.
pub(super) fn progress_bar(total: Option<u64>, counting: Counting, shown: bool) -> ProgressBar {
    if !shown || !std::io::stderr().is_terminal() {
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
pub(super) fn games_message(games: u64, since: Instant) -> String {
    let seconds = since.elapsed().as_secs_f64().max(1e-3);
    format!("{games} games, {:.0} games/s", games as f64 / seconds)
}

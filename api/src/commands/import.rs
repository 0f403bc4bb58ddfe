//! `umpire import` and `umpire export`: archives into the store through the
//! service's one importer (`umpire_service::import`, which the HTTP import
//! calls too), and stored games out as JSON Lines.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use anyhow::Context;
use futures_util::StreamExt;
use umpire_archive::reading::archive_texts_of;
use umpire_archive::Archive;
use umpire_service::archives::{archive_of, export_game};
use umpire_service::import::{import_archives, ImportLine};
use umpire_service::{ImportPace, ImportTotals};
use uuid::Uuid;

/// Archives read ahead of the validators.
const READ_AHEAD: usize = 16;

/// Answer lines made but not yet printed.
const LINES_QUEUED: usize = 64;

/// `umpire import`: validates and stores every archive of the inputs
/// (replays on every core); prints one JSON line per archive, in the
/// inputs' order: its new tokens, or why it was refused. A failure to read
/// the inputs stops the import after the archives read before it.
pub async fn import(url: &str, inputs: &[String]) -> anyhow::Result<ImportTotals> {
    let store = super::store(url, 4)?;
    let registry = Arc::new(umpire_games::registry());
    let files = super::expand(inputs)?;
    let unread = Arc::new(OnceLock::new());
    let texts = archive_texts_of(files, READ_AHEAD).map_while({
        let unread = unread.clone();
        move |text| match text {
            Ok(text) => Some(text),
            Err(error) => {
                let _ = unread.set(error);
                None
            }
        }
    });
    let (lines, mut to_print) = tokio::sync::mpsc::channel::<ImportLine>(LINES_QUEUED);
    let importing = import_archives(&store, registry, texts, ImportPace::on_every_core(), lines);
    let printing = async move {
        let mut stdout = std::io::stdout();
        while let Some(line) = to_print.recv().await {
            let text = serde_json::to_string(&line)?;
            writeln!(stdout, "{text}").context("writing to standard output")?;
        }
        Ok::<_, anyhow::Error>(())
    };
    let (imported, printed) = tokio::join!(importing, printing);
    printed?;
    let totals = imported?;
    if let Some(error) = unread.get() {
        anyhow::bail!("{error}");
    }
    Ok(totals)
}

/// `umpire export`: the named games (or all, streamed) as JSON Lines.
pub async fn export(
    url: &str,
    game_ids: &[Uuid],
    all: bool,
    out: Option<&Path>,
) -> anyhow::Result<()> {
    let store = super::store(url, 4)?;
    let mut out = super::output(out)?;
    let mut write = |archive: &Archive| -> anyhow::Result<()> {
        out.write_all(archive.to_json_line().as_bytes())?;
        out.write_all(b"\n").context("writing the archives")
    };
    if all {
        let stream = store
            .stream_archives()
            .await
            .context("reading the stored games")?;
        let mut stream = std::pin::pin!(stream);
        while let Some(game) = stream.next().await {
            let game = game.context("reading the stored games")?;
            write(&archive_of(&game.record, game.events, game.rejections))?;
        }
    }
    for game_id in game_ids {
        let archive = export_game(&store, *game_id)
            .await
            .with_context(|| format!("game {game_id}"))?;
        write(&archive)?;
    }
    out.flush().context("writing the archives")
}

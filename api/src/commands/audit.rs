//! `umpire audit` and `umpire what-if`: one stored game, or the archives of a
//! file (read by `umpire_archive::reading`, as a body is), audited or re-run.

use std::path::PathBuf;

use anyhow::{bail, Context};
use serde_json::Value;
use umpire_archive::reading::{each_archive_in_file, ArchivesInFile};
use umpire_archive::{Archive, Input};
use umpire_service::archives::export_game;
use uuid::Uuid;

use crate::commands::write_stdout;

/// Where an archive for `audit` and `what-if` comes from.
pub enum ArchiveSource {
    Database { url: String, game_id: Uuid },
    File(PathBuf),
}

/// Calls `each` with every archive the source names, as it is read: a
/// stored game, or a file's archives; with how many there are, if known.
async fn each_archive(
    source: &ArchiveSource,
    each: &mut dyn FnMut(Archive, ArchivesInFile) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    match source {
        ArchiveSource::File(path) => {
            let input = Input::parse(&path.to_string_lossy());
            each_archive_in_file(&input, |text, place, count| {
                let archive = Archive::from_json(text)
                    .with_context(|| place.label(&path.display().to_string()))?;
                each(archive, count)
            })
        }
        ArchiveSource::Database { url, game_id } => {
            let store = super::store(url, 2)?;
            let archive = export_game(&store, *game_id)
                .await
                .map_err(|e| anyhow::anyhow!("game {game_id}: {}", e.body().message))?;
            each(archive, Some(1))
        }
    }
}

/// The one archive a source names; JSON Lines of several is an error here.
async fn load_one(source: &ArchiveSource) -> anyhow::Result<Archive> {
    let mut archives = Vec::new();
    each_archive(source, &mut |archive, count| {
        if count != Some(1) {
            let ArchiveSource::File(path) = source else {
                unreachable!("a stored game is one archive")
            };
            let count = count.map_or("several".to_string(), |count| count.to_string());
            bail!(
                "{} holds {count} archives (JSON Lines); this command takes one: split the file or pick a line",
                path.display(),
            );
        }
        archives.push(archive);
        Ok(())
    })
    .await?;
    archives.pop().context("no archive was read")
}

/// `umpire audit`: prints the audit report as JSON (one line per archive
/// for JSON Lines); fails when a log diverges or a chain is broken.
pub async fn audit(source: ArchiveSource) -> anyhow::Result<()> {
    let registry = umpire_games::registry();
    let mut audited = 0usize;
    let mut failed = 0usize;
    let mut several = false;
    each_archive(&source, &mut |archive, count| {
        several = count != Some(1);
        let report = umpire_archive::audit(&registry, &archive)
            .map_err(|d| anyhow::anyhow!("game {} cannot be audited: {d}", archive.game_id))?;
        let mut text = if several {
            serde_json::to_string(&report)?
        } else {
            serde_json::to_string_pretty(&report)?
        };
        text.push('\n');
        write_stdout(text.as_bytes()).context("writing the audit report")?;
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
        1 if !several => bail!("the log does not hold"),
        _ => bail!("{failed} of {audited} games' logs do not hold"),
    }
}

/// `umpire what-if`: re-runs a game's actions under patched options.
pub async fn what_if(source: ArchiveSource, options_patch: &Value) -> anyhow::Result<()> {
    let archive = load_one(&source).await?;
    let registry = umpire_games::registry();
    let report = umpire_archive::what_if(&registry, &archive, options_patch)?;
    let mut text = serde_json::to_string_pretty(&report)?;
    text.push('\n');
    write_stdout(text.as_bytes()).context("writing the what-if report")
}

//! Scoring one game fast: fold its event payloads straight from the archive
//! text (borrowed, never built into a `serde_json::Value`) and summarise.
//!
//! The fold trusts the log it folds, as the service does. An archive from
//! outside may have been changed since it was exported, so `umpire score`
//! first checks its hash chain ([`score_verified_archive_text`], with the
//! verifier `audit` and import use) unless told to trust it; re-deciding
//! every action stays with `audit` and import. A log that does not fold (a
//! malformed event, or one that makes a game's `apply` panic) or whose
//! chain is broken becomes an error row with a stable code ([`ScoreFault`]):
//! one bad game never stops a batch.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use umpire_domain::Registry;

use crate::format::{Archive, FORMAT, FORMAT_VERSION};
use crate::replay::{verify_chain, Cause};

/// One line of bulk scoring output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ScoreRow {
    /// The game's id (empty when the archive is too broken to say).
    pub game_id: String,
    pub game: String,
    /// Where the archive came from: `path:line`, or `db`.
    pub source: String,
    /// Events folded.
    pub events: u64,
    /// Whether the game is over; absent on error rows.
    #[serde(rename = "final")]
    pub is_final: Option<bool>,
    /// Total per seat.
    pub totals: BTreeMap<String, i64>,
    pub winners: Vec<String>,
    /// Why the game could not be scored; absent when it was.
    pub error: Option<String>,
    /// The error's stable code, one of `ErrorBody.code`'s values
    /// (`archive_hash_mismatch`: the archive was changed after it was
    /// recorded); absent when the game was scored.
    #[serde(default)]
    #[schema(example = "archive_hash_mismatch")]
    pub code: Option<String>,
}

impl ScoreRow {
    pub fn error(
        game_id: impl Into<String>,
        game: impl Into<String>,
        source: impl Into<String>,
        fault: ScoreFault,
        error: impl Into<String>,
    ) -> Self {
        ScoreRow {
            game_id: game_id.into(),
            game: game.into(),
            source: source.into(),
            events: 0,
            is_final: None,
            totals: BTreeMap::new(),
            winners: Vec::new(),
            error: Some(error.into()),
            code: Some(fault.code().to_string()),
        }
    }
}

/// Why an archive was not scored: its error row's stable code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreFault {
    /// Not JSON, not an archive's shape, or an archive whose chain cannot
    /// be checked because the full format refuses it (`invalid_archive`).
    NotAnArchive,
    /// A format or format version this build does not read
    /// (`unsupported_archive`).
    UnsupportedFormat,
    /// No game of that name (`unknown_game`).
    UnknownGame,
    /// Options that are not JSON, or not the game's (`invalid_options`).
    InvalidOptions,
    /// An event that does not fold into the game's state: not an event of
    /// the game, or one the state before it cannot take
    /// (`archive_does_not_fold`).
    DoesNotFold,
    /// The hash chain does not hold, for this cause (`SequenceGap`,
    /// `ChainBroken`, `HashMismatch`: the import's codes).
    Chain(Cause),
}

impl ScoreFault {
    /// The code an error row carries (`service/src/codes.rs` lists and
    /// explains each).
    pub fn code(self) -> &'static str {
        match self {
            ScoreFault::NotAnArchive => "invalid_archive",
            ScoreFault::UnsupportedFormat => "unsupported_archive",
            ScoreFault::UnknownGame => Cause::UnknownGame.code(),
            ScoreFault::InvalidOptions => Cause::InvalidOptions.code(),
            ScoreFault::DoesNotFold => "archive_does_not_fold",
            ScoreFault::Chain(cause) => cause.code(),
        }
    }
}

impl ScoreRow {
    /// The longest `game_id`, `game` or `error` text a bounded row keeps.
    pub const MAX_TEXT_CHARS: usize = 240;

    /// The row with every text taken from the input cut to
    /// [`ScoreRow::MAX_TEXT_CHARS`] characters (ending in `…`): a parse
    /// error quotes what it could not read, and an answer to a stranger must
    /// not grow with what the stranger sent.
    pub fn bounded(mut self) -> Self {
        for text in [&mut self.game_id, &mut self.game] {
            truncate_chars(text, Self::MAX_TEXT_CHARS);
        }
        if let Some(error) = self.error.as_mut() {
            truncate_chars(error, Self::MAX_TEXT_CHARS);
        }
        self
    }
}

fn truncate_chars(text: &mut String, max_chars: usize) {
    if let Some((cut, _)) = text.char_indices().nth(max_chars.saturating_sub(1)) {
        if text[cut..].chars().nth(1).is_some() {
            text.truncate(cut);
            text.push('…');
        }
    }
}

/// The part of an archive scoring reads; payloads stay borrowed text.
#[derive(Deserialize)]
struct ScoringArchive<'a> {
    #[serde(default, borrow)]
    format: Option<Cow<'a, str>>,
    #[serde(default)]
    format_version: Option<u32>,
    #[serde(borrow)]
    game_id: Cow<'a, str>,
    #[serde(borrow)]
    game: Cow<'a, str>,
    #[serde(borrow)]
    options: &'a RawValue,
    #[serde(borrow)]
    events: Vec<ScoringEvent<'a>>,
}

#[derive(Deserialize)]
struct ScoringEvent<'a> {
    #[serde(borrow)]
    payload: &'a RawValue,
}

/// Just the ids, for an error row of an archive of the wrong shape.
#[derive(Deserialize)]
struct Ids {
    #[serde(default)]
    game_id: Option<String>,
    #[serde(default)]
    game: Option<String>,
}

/// Scores one archive document (one JSON Lines line).
pub fn score_archive_text(registry: &Registry, text: &str, source: &str) -> ScoreRow {
    let archive: ScoringArchive<'_> = match serde_json::from_str(text) {
        Ok(archive) => archive,
        Err(error) => {
            let ids: Option<Ids> = serde_json::from_str(text).ok();
            let (game_id, game) = ids
                .map(|ids| {
                    (
                        ids.game_id.unwrap_or_default(),
                        ids.game.unwrap_or_default(),
                    )
                })
                .unwrap_or_default();
            return ScoreRow::error(
                game_id,
                game,
                source,
                ScoreFault::NotAnArchive,
                format!("not an archive: {error}"),
            );
        }
    };
    if archive.format.as_deref().is_some_and(|f| f != FORMAT)
        || archive.format_version.is_some_and(|v| v != FORMAT_VERSION)
    {
        return ScoreRow::error(
            archive.game_id,
            archive.game,
            source,
            ScoreFault::UnsupportedFormat,
            format!(
                "unsupported archive format {} version {}",
                archive.format.as_deref().unwrap_or(FORMAT),
                archive.format_version.unwrap_or(FORMAT_VERSION)
            ),
        );
    }
    score_events(
        registry,
        &archive.game_id,
        &archive.game,
        archive.options.get(),
        archive.events.iter().map(|event| event.payload.get()),
        source,
    )
}

/// Whether scoring checks each archive's hash chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChainCheck {
    /// Check it: a broken chain is an error row (the default, for archives
    /// from outside, which anyone may have edited).
    #[default]
    Verify,
    /// Fold the log as it is (`--trust-chain`: archives this installation
    /// wrote itself, scored again).
    Trust,
}

/// Scores one archive document, first checking its hash chain unless `chain`
/// says to trust it: what `umpire score` and `POST /v1/scores` do with each
/// archive they read.
pub fn score_archive(registry: &Registry, text: &str, source: &str, chain: ChainCheck) -> ScoreRow {
    match chain {
        ChainCheck::Verify => score_verified_archive_text(registry, text, source),
        ChainCheck::Trust => score_archive_text(registry, text, source),
    }
}

/// Scores one archive document after checking its hash chain: an archive
/// changed after it was recorded (one payload value edited) is an error row
/// naming the first event that does not hold, as `audit` reports it. The
/// check reads the whole archive into values and hashes every event, so it
/// costs more than the fold; `--trust-chain` skips it.
pub fn score_verified_archive_text(registry: &Registry, text: &str, source: &str) -> ScoreRow {
    match Archive::from_json(text) {
        Ok(archive) => {
            if let Some(broken) = verify_chain(&archive) {
                // The cause's stable code, as `audit` reports it.
                let code = serde_json::to_value(broken.cause)
                    .ok()
                    .and_then(|code| code.as_str().map(str::to_string))
                    .unwrap_or_default();
                return ScoreRow::error(
                    archive.game_id.to_string(),
                    archive.game,
                    source,
                    ScoreFault::Chain(broken.cause),
                    format!(
                        "the hash chain does not hold ({code}) at event {}: {}",
                        broken.seq, broken.message
                    ),
                );
            }
        }
        // What is not an archive at all gets the fold's own error row
        // (which names what it could read); what the fold could read but
        // the full format refuses is not scored unchecked.
        Err(error) => {
            let row = score_archive_text(registry, text, source);
            if row.error.is_some() {
                return row;
            }
            return ScoreRow::error(
                row.game_id,
                row.game,
                source,
                ScoreFault::NotAnArchive,
                format!("the hash chain cannot be checked: {error}"),
            );
        }
    }
    score_archive_text(registry, text, source)
}

/// Folds a game's event payloads (JSON text, in order) and summarises it.
pub fn score_events<'a>(
    registry: &Registry,
    game_id: &str,
    game_name: &str,
    options_json: &str,
    payloads: impl Iterator<Item = &'a str>,
    source: &str,
) -> ScoreRow {
    let failed = |fault, error: String| ScoreRow::error(game_id, game_name, source, fault, error);
    let game = match registry.get(game_name) {
        Ok(game) => game,
        Err(error) => return failed(ScoreFault::UnknownGame, error.to_string()),
    };
    let options: serde_json::Value = match serde_json::from_str(options_json) {
        Ok(options) => options,
        Err(error) => {
            return failed(
                ScoreFault::InvalidOptions,
                format!("options are not JSON: {error}"),
            )
        }
    };
    // A game's `apply` may panic on an event its `decide` would never have
    // produced; for a batch that is one bad game, not a crash.
    let folded = catch_unwind(AssertUnwindSafe(|| {
        let mut state = game
            .new_match(&options)
            .map_err(|e| (ScoreFault::InvalidOptions, e.to_string()))?;
        for payload in payloads {
            let seq = state.version() + 1;
            state
                .apply_str(payload)
                .map_err(|e| (ScoreFault::DoesNotFold, format!("event {seq}: {e}")))?;
        }
        Ok::<_, (ScoreFault, String)>((state.version(), state.summary()))
    }));
    match folded {
        Ok(Ok((events, summary))) => ScoreRow {
            game_id: game_id.to_string(),
            game: game.id().to_string(),
            source: source.to_string(),
            events,
            is_final: Some(summary.is_final),
            totals: summary.totals,
            winners: summary.winners,
            error: None,
            code: None,
        },
        Ok(Err((fault, error))) => failed(fault, error),
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            failed(
                ScoreFault::DoesNotFold,
                format!("the log does not fold: {what}"),
            )
        }
    }
}

/// Output formats of bulk scoring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    #[default]
    Csv,
    JsonLines,
}

impl std::str::FromStr for OutputFormat {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "csv" => Ok(OutputFormat::Csv),
            "jsonl" | "json" | "ndjson" => Ok(OutputFormat::JsonLines),
            other => Err(format!("unknown format `{other}`: use csv or jsonl")),
        }
    }
}

/// The CSV header.
pub const CSV_HEADER: [&str; 7] = [
    "game_id", "game", "source", "events", "final", "totals", "winners",
];

/// Writes rows as CSV (`totals` as `seat=total;…`, `winners` as `seat;…`,
/// plus `error` and `code` columns) or as JSON Lines.
pub struct RowWriter<W: Write> {
    format: OutputFormat,
    csv: Option<csv::Writer<W>>,
    plain: Option<W>,
}

impl<W: Write> RowWriter<W> {
    pub fn new(format: OutputFormat, out: W) -> std::io::Result<Self> {
        Ok(match format {
            OutputFormat::Csv => {
                let mut writer = csv::Writer::from_writer(out);
                let mut header: Vec<&str> = CSV_HEADER.to_vec();
                header.extend(["error", "code"]);
                writer
                    .write_record(&header)
                    .map_err(std::io::Error::other)?;
                RowWriter {
                    format,
                    csv: Some(writer),
                    plain: None,
                }
            }
            OutputFormat::JsonLines => RowWriter {
                format,
                csv: None,
                plain: Some(out),
            },
        })
    }

    pub fn write(&mut self, row: &ScoreRow) -> std::io::Result<()> {
        match self.format {
            OutputFormat::Csv => {
                let totals = row
                    .totals
                    .iter()
                    .map(|(seat, total)| format!("{seat}={total}"))
                    .collect::<Vec<_>>()
                    .join(";");
                let events = row.events.to_string();
                let is_final = row.is_final.map(|f| f.to_string()).unwrap_or_default();
                let winners = row.winners.join(";");
                let error = row.error.clone().unwrap_or_default();
                let code = row.code.clone().unwrap_or_default();
                self.csv
                    .as_mut()
                    .expect("csv writer")
                    .write_record([
                        row.game_id.as_str(),
                        row.game.as_str(),
                        row.source.as_str(),
                        events.as_str(),
                        is_final.as_str(),
                        totals.as_str(),
                        winners.as_str(),
                        error.as_str(),
                        code.as_str(),
                    ])
                    .map_err(std::io::Error::other)
            }
            OutputFormat::JsonLines => {
                let out = self.plain.as_mut().expect("plain writer");
                serde_json::to_writer(&mut *out, row).map_err(std::io::Error::other)?;
                out.write_all(b"\n")
            }
        }
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        match self.format {
            OutputFormat::Csv => self.csv.as_mut().expect("csv writer").flush(),
            OutputFormat::JsonLines => self.plain.as_mut().expect("plain writer").flush(),
        }
    }
}

/// Reads CSV output back into rows (for tests and comparisons).
pub fn parse_csv_rows(text: &str) -> Result<Vec<ScoreRow>, String> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| e.to_string())?;
        let field = |i: usize| record.get(i).unwrap_or("").to_string();
        let totals = field(5)
            .split(';')
            .filter(|s| !s.is_empty())
            .filter_map(|pair| {
                let (seat, total) = pair.split_once('=')?;
                Some((seat.to_string(), total.parse().ok()?))
            })
            .collect();
        let error = field(7);
        let code = field(8);
        rows.push(ScoreRow {
            game_id: field(0),
            game: field(1),
            source: field(2),
            events: field(3).parse().unwrap_or(0),
            is_final: field(4).parse().ok(),
            totals,
            winners: field(6)
                .split(';')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            error: (!error.is_empty()).then_some(error),
            code: (!code.is_empty()).then_some(code),
        });
    }
    Ok(rows)
}

//! The archive format: one JSON document per game, versioned, with the full
//! event log and its hash chain; many games are JSON Lines, one archive a line.
//!
//! The format is documented in `archive/README.md`; bump [`FORMAT_VERSION`]
//! for any change that an older reader would misread.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use umpire_domain::chain::ChainLink;
use uuid::Uuid;

/// The `format` tag every archive carries.
pub const FORMAT: &str = "umpire.archive";
/// The version of the layout below. Readers refuse versions they do not know.
pub const FORMAT_VERSION: u32 = 1;

fn format_tag() -> String {
    FORMAT.to_string()
}

fn format_version() -> u32 {
    FORMAT_VERSION
}

/// One game, as exported and imported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Archive {
    /// Always `umpire.archive`.
    #[serde(default = "format_tag")]
    pub format: String,
    /// The layout version, currently 1.
    #[serde(default = "format_version")]
    pub format_version: u32,
    /// The game's id. The hash chain covers it, so an import keeps it.
    pub game_id: Uuid,
    /// The game's id in the registry, e.g. `arboretum`.
    pub game: String,
    /// The options as stored: validated, with every default filled in.
    pub options: Value,
    /// The RNG seed the setup was drawn from (umpire-only information).
    pub seed: u64,
    /// The rules version the game was created under.
    pub rules_version: u32,
    /// RFC 3339.
    pub created_at: String,
    /// The whole log, in sequence order, with its hash chain.
    pub events: Vec<ArchivedEvent>,
    /// Refused actions, in the order they were refused.
    #[serde(default)]
    pub rejections: Vec<ArchivedRejection>,
}

/// One stored event, field for field as the event store keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArchivedEvent {
    pub seq: u64,
    pub event_type: String,
    pub payload: Value,
    /// `system` (setup), `umpire` or `seat:<name>`.
    pub actor: String,
    /// The action that caused the event; `null` for setup events.
    #[serde(default)]
    pub action: Value,
    /// The version the action was decided against; shared by every event of
    /// one action (0 for setup events).
    pub decided_at: u64,
    pub rules_version: u32,
    /// RFC 3339, UTC, exactly six fractional digits, `Z`: the hashed string.
    pub recorded_at: String,
    pub prev_hash: String,
    pub hash: String,
}

impl ArchivedEvent {
    /// The fields the hash covers.
    pub fn chain_link<'a>(&'a self, game_id: &'a str) -> ChainLink<'a> {
        ChainLink {
            game_id,
            seq: self.seq,
            event_type: &self.event_type,
            payload: &self.payload,
            actor: &self.actor,
            action: &self.action,
            decided_at: self.decided_at,
            rules_version: self.rules_version,
            recorded_at: &self.recorded_at,
            prev_hash: &self.prev_hash,
        }
    }
}

/// A refused action, kept outside the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArchivedRejection {
    /// The version the game was at when the action was refused.
    pub at_version: u64,
    pub actor: String,
    pub action: Value,
    pub code: String,
    pub message: String,
    #[serde(default)]
    pub rule: Option<String>,
    pub rules_version: u32,
    pub recorded_at: String,
    /// How many times this refusal was made (identical refusals are counted
    /// on one entry, not repeated). Archives written before the count existed
    /// have none: each entry was then one refusal.
    #[serde(default = "one_refusal")]
    pub repeats: u64,
}

fn one_refusal() -> u64 {
    1
}

/// Why a document is not an archive at all (before any replay).
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("not valid archive JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("`format` is `{0}`, not `umpire.archive`")]
    WrongFormat(String),
    #[error("format_version {0} is not supported (this build reads version {FORMAT_VERSION})")]
    UnsupportedVersion(u32),
}

impl Archive {
    /// Parses and checks the format tag and version.
    pub fn from_json(text: &str) -> Result<Archive, FormatError> {
        let archive: Archive = serde_json::from_str(text)?;
        archive.check_format()?;
        Ok(archive)
    }

    pub fn from_value(value: Value) -> Result<Archive, FormatError> {
        let archive: Archive = serde_json::from_value(value)?;
        archive.check_format()?;
        Ok(archive)
    }

    pub fn check_format(&self) -> Result<(), FormatError> {
        if self.format != FORMAT {
            return Err(FormatError::WrongFormat(self.format.clone()));
        }
        if self.format_version != FORMAT_VERSION {
            return Err(FormatError::UnsupportedVersion(self.format_version));
        }
        Ok(())
    }

    /// One line of JSON, for JSON Lines.
    pub fn to_json_line(&self) -> String {
        // Archives hold only JSON values, strings and integers: serialising
        // them cannot fail.
        serde_json::to_string(self).expect("archives serialise to JSON")
    }

    /// The number of events (the game's version).
    pub fn version(&self) -> u64 {
        self.events.len() as u64
    }
}

/// Formats a time as the event store hashes it: UTC, microseconds, `Z`.
pub fn format_recorded_at(time: &chrono::DateTime<chrono::Utc>) -> String {
    time.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

/// True when `text` is exactly how the store would print this instant, so
/// that importing and reading back keeps the hashed string unchanged.
pub fn is_canonical_recorded_at(text: &str) -> bool {
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|time| format_recorded_at(&time.with_timezone(&chrono::Utc)) == text)
        .unwrap_or(false)
}

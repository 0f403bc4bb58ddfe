//! The archive format: one JSON document per game, versioned, with the full
//! event log and its hash chain; many games are JSON Lines, one archive a line.
//!
//! The format is documented in `archive/README.md`; bump [`FORMAT_VERSION`]
//! for any change that an older reader would misread.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use umpire_domain::record::RecordedRejection;
use umpire_domain::RecordedEvent;
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

/// One game, as exported and imported (see `archive/README.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Archive {
    /// Always `umpire.archive`.
    #[serde(default = "format_tag")]
    #[schema(example = "umpire.archive")]
    pub format: String,
    /// The layout version, currently 1.
    #[serde(default = "format_version")]
    pub format_version: u32,
    /// The game's id. The hash chain covers it, so an import keeps it.
    pub game_id: Uuid,
    /// The game's id in the registry, e.g. `arboretum`.
    pub game: String,
    /// The options as stored: validated, with every default filled in.
    #[schema(schema_with = umpire_domain::schema_names::any_options)]
    pub options: Value,
    /// The RNG seed the setup was drawn from (umpire-only information).
    pub seed: u64,
    /// The rules version the game was created under.
    pub rules_version: u32,
    /// RFC 3339.
    pub created_at: String,
    /// The whole log, in sequence order, with its hash chain.
    pub events: Vec<RecordedEvent>,
    /// Refused actions, in the order they were refused.
    #[serde(default)]
    pub rejections: Vec<RecordedRejection>,
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

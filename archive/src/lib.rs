//! Game archives for disputes and bulk work: the versioned archive format,
//! replay validation (hash chain plus every action re-decided), the audit of
//! one game, what-if re-runs under other options, random games, and
//! streaming, parallel bulk scoring.
//!
//! Like `domain`, nothing here talks to a database or the network: archives
//! come in as text or values, found in a body or a file by `reading`, and
//! the bulk pipeline reads files or any iterator of chunks (the `umpire`
//! binary feeds it from PostgreSQL).

pub mod audit;
pub mod format;
pub mod import;
pub mod inputs;
pub mod pipeline;
pub mod reading;
pub mod replay;
pub mod score;
pub mod simulate;
pub mod what_if;

pub use audit::{
    audit, audit_entries, audit_opening, AuditClosing, AuditEntry, AuditOpening, AuditReport,
    AuditStop, EntryKind,
};
pub use format::{Archive, FormatError, FORMAT, FORMAT_VERSION};
pub use import::{
    validate_for_import, validate_for_import_observing, ImportRefusal, InvalidRejection,
    RejectionFault, RejectionPolicy,
};
pub use inputs::{Input, MAX_ARCHIVE_BYTES};
pub use pipeline::{score_inputs, Progress, ScoreSettings};
pub use replay::{replay, Cause, Divergence, Replayed, Step};
pub use score::ChainCheck;
pub use score::{
    score_archive, score_archive_text, score_events, score_verified_archive_text, OutputFormat,
    RowWriter, ScoreFault, ScoreRow,
};
pub use simulate::{simulate_one, simulate_to, SimulationRun, SimulationTotals};
pub use what_if::{what_if, WhatIfError, WhatIfReport};

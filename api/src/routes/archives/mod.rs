//! Archives over HTTP: audit and export a game (umpire only), import
//! archives (validated by replay before anything is stored), what-if
//! re-runs, and scoring archives sent in the body without storing them. One
//! file per endpoint, thin adapters to the service; the bodies they read
//! (`body.rs`) and the streamed answers they write (`streamed.rs`) are
//! shared.

mod audit;
mod body;
mod export;
mod import;
mod score;
mod stored;
mod streamed;
mod what_if;

pub use audit::*;
pub use export::*;
pub use import::*;
pub use score::*;
pub use what_if::*;

/// Largest archive body accepted by import and scoring: the largest archive
/// the commands read too, named once in `umpire_archive`. Archives are much
/// larger than actions, so these endpoints read their body themselves.
pub use umpire_archive::MAX_ARCHIVE_BYTES;

/// Most archives scored or imported in one request. Rows are streamed, so
/// memory does not grow with their number, but time and the answer's size
/// do: a body of tiny junk lines would otherwise ask for millions of error
/// rows. A real archive is tens of kilobytes (74 KB on average for
/// simulated games, see `docs/benchmarks.md`), so a full body holds a few
/// hundred: the cap leaves room for very short games.
pub const MAX_ARCHIVES_PER_REQUEST: usize = 10_000;

/// How long a streamed answer waits for its client to take the next chunk
/// before it is cut: a client that stops reading must not hold a thread, a
/// body and (for an audit) a game's log forever.
pub const READER_STALL: std::time::Duration = std::time::Duration::from_secs(30);

/// Archive bodies (up to [`MAX_ARCHIVE_BYTES`] each, anonymous on
/// `/v1/scores`) handled at once; a request past them waits up to
/// [`ARCHIVE_BODY_WAIT`] for a turn, then is answered 503 `busy`. Without this
/// bound, memory per request is a constant but memory per instance is not.
pub const ARCHIVE_BODIES_AT_ONCE: usize = 4;
pub const ARCHIVE_BODY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

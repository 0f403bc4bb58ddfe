//! Live streams: a viewer follows a game's log from a version on, event by
//! event, each redacted exactly as `/events` redacts it, with the game's
//! status after it.
//!
//! The log is the source of truth. A stream's position is a version, and
//! every read is "the events after my position", from the fold cache and
//! the store — so a stream that resumes, falls behind or misses a
//! notification still sees every event exactly once, in order. Notifications
//! only wake streams, and a stream at the head does not read: this
//! instance's append renders the page after it once for each viewer the
//! game's streams follow as (a seat, the spectators, the umpire) before it
//! wakes them, and each stream at that position takes its viewer's page
//! (`pushed.rs`). The store announces every append through PostgreSQL
//! (`umpire_storage::AppendListener`, one connection per instance, shared by
//! all its streams, open while any stream is: see `listener.rs`), so an
//! action taken through another instance on the same database wakes this
//! one's streams too. This instance announces its own
//! appends itself, once their fold is cached, and holds the store's
//! announcements of a game back while it appends to it: they would
//! otherwise often arrive first, and every stream would read the store for
//! what the cache is about to hold. A watch channel per followed game
//! holds only the latest version announced, so a slow reader costs nothing
//! while it is slow: when it reads again, it catches up from the log a page
//! at a time. If the listening connection drops, the instance listens again
//! and wakes every stream to read the log; until then streams still read it
//! whenever they send a heartbeat.
//!
//! An idle stream is cheap: at the head it holds its position and a weak
//! reference to the fold it last read (which the fold cache may let go),
//! never a game log or a state of its own, and its heartbeats come from one
//! ticker per instance rather than a timer of its own. Slots are fair: an
//! instance holds a limited number of streams, one client (a token, or
//! an address for spectators) a limited number of those, and one address,
//! whatever the tokens its streams carry, a limited number too; each stream is
//! charged to the memory budget, and so are the renderings its game's
//! streams share.
//!
//! One file per job: `hub.rs` keeps who follows which game, passes
//! announcements on, and hands out slots and the heartbeat; `listener.rs`
//! holds the listening connection and connects it again when it drops;
//! `renders.rs` keeps what a game's streams share (the memo of each of its
//! latest events, `projection/memo.rs`; the state they fold on from; the
//! pages pushed); `cursor.rs` reads the page after a position as one
//! viewer is shown it, for a stream and for an append's push;
//! `follower.rs` is one stream: its cursor, its slots and its wait. A stream reads
//! through a `folds::Reader`, never the whole service, so nothing here
//! depends on `games.rs`.

mod client_slots;
mod cursor;
mod follower;
mod hub;
mod listener;
mod pushed;
mod renders;

use std::sync::Arc;
use std::time::Duration;

use umpire_domain::StatusJson;
use umpire_domain::{Actor, Viewer};
use uuid::Uuid;

pub use follower::Follower;

use crate::client_address::ClientAddress;
pub(crate) use hub::Live;

/// Events a stream reads at once: what it holds in memory beyond its
/// position, and what it hands its connection at once. Small, so that a
/// reader that stops reading pins little: a connection stops taking
/// messages once it has about 32 KiB unsent.
pub const STREAM_PAGE: u64 = 16;

/// Streams an instance holds open at once unless configured otherwise.
pub const DEFAULT_MAX_STREAMS: usize = 2048;

/// Streams one client holds open at once unless configured otherwise: a
/// browser opens one per game it shows (and at most six per host over
/// HTTP/1.1), so this leaves room for a page per game of a whole table.
pub const DEFAULT_MAX_STREAMS_PER_CLIENT: usize = 16;

/// Streams one client address holds open at once, whatever their tokens,
/// unless configured otherwise: room for a club's tables behind one NAT,
/// while one address holding all of an instance's slots would take at
/// least 32 of them.
pub const DEFAULT_MAX_STREAMS_PER_ADDRESS: usize = 64;

/// How often an idle stream sends a heartbeat unless configured otherwise.
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(15);

/// What one open stream is charged to the memory budget: its connection's
/// buffers, its SSE state and its subscription, as measured on 1,000 idle
/// streams (`scripts/idle-streams.sh`, docs/benchmarks.md), rounded up.
pub const STREAM_BYTES: usize = 32 * 1024;

/// Refusals of a stream are logged at most this often; the rest are counted
/// in `/metrics` and in the next line logged.
const REFUSAL_LOG_EVERY: Duration = Duration::from_secs(10);

/// How long a stream is idle (no event) before it is ended unless
/// configured otherwise.
pub const DEFAULT_STREAM_IDLE: Duration = Duration::from_secs(30 * 60);

/// How long a stream lives in all unless configured otherwise.
pub const DEFAULT_STREAM_LIFETIME: Duration = Duration::from_secs(2 * 60 * 60);

/// An instance's limits on live streams: how many, and for how long.
#[derive(Debug, Clone, Copy)]
pub struct StreamLimits {
    /// Streams the instance holds open at once; beyond, `Busy`.
    pub max_open: usize,
    /// Streams one client holds open at once ([`StreamClient`]); beyond,
    /// `TooManyStreams`.
    pub max_per_client: usize,
    /// Streams one client address holds open at once, whatever their
    /// tokens ([`StreamClient::address`]); beyond, `TooManyStreams`.
    pub max_per_address: usize,
    /// How often every stream is sent a heartbeat (one ticker for all);
    /// the log is read then too when the instance is not listening for
    /// announcements, so a stream keeps up even without them.
    pub heartbeat: Duration,
    /// A stream that delivered no event for this long is ended (`idle`).
    pub idle: Duration,
    /// A stream is ended after this long in all (`lifetime`).
    pub lifetime: Duration,
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            max_open: DEFAULT_MAX_STREAMS,
            max_per_client: DEFAULT_MAX_STREAMS_PER_CLIENT,
            max_per_address: DEFAULT_MAX_STREAMS_PER_ADDRESS,
            heartbeat: DEFAULT_HEARTBEAT,
            idle: DEFAULT_STREAM_IDLE,
            lifetime: DEFAULT_STREAM_LIFETIME,
        }
    }
}

/// Who a stream's slots are counted against: its token (a seat or the
/// umpire of one game), or for a spectator the address it connects from;
/// and, whatever the token, that address too, since anyone may mint tokens
/// on an open service (a game created is a token per seat).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StreamClient {
    Token {
        game_id: Uuid,
        actor: Actor<String>,
        address: Option<ClientAddress>,
    },
    Address(ClientAddress),
    /// A spectator whose address is unknown (a unix socket): all such share
    /// one client's slots.
    Unknown,
}

impl StreamClient {
    /// The client of a stream of `game_id` opened by `viewer` from
    /// `address`.
    pub fn of(
        game_id: Uuid,
        viewer: &Viewer<String>,
        address: Option<ClientAddress>,
    ) -> StreamClient {
        match (viewer.actor(), address) {
            (Some(actor), address) => StreamClient::Token {
                game_id,
                actor: actor.cloned(),
                address,
            },
            (None, Some(address)) => StreamClient::Address(address),
            (None, None) => StreamClient::Unknown,
        }
    }

    /// The address the stream comes from, when known: counted against
    /// [`StreamLimits::max_per_address`] whatever the token.
    pub fn address(&self) -> Option<ClientAddress> {
        match self {
            StreamClient::Token { address, .. } => *address,
            StreamClient::Address(address) => Some(*address),
            StreamClient::Unknown => None,
        }
    }
}

/// One event of a stream as its viewer sees it: the JSON of a
/// [`StreamEvent`](crate::model::StreamEvent), shared with the game's other streams of that viewer.
#[derive(Debug, Clone)]
pub struct RenderedEvent {
    pub seq: u64,
    pub json: Arc<str>,
}

/// What one read of a stream gives: a page, read by the stream itself or
/// pushed to it (the same page, made once for every stream of its viewer
/// at the same position).
#[derive(Debug, Clone)]
pub struct StreamBatch {
    /// The events after the position, at most [`STREAM_PAGE`].
    pub events: Arc<[RenderedEvent]>,
    /// Whether one of them reissued a seat's token: the token a seat's
    /// stream was opened with may stand no more (asked of the store).
    pub reissued: bool,
    /// The game's version and status after the last of them (or now, when
    /// there were none).
    pub version: u64,
    /// (Shared: the streams of a game at its head share the status after it.)
    pub status: Arc<StatusJson>,
    /// The game's newest version when read: `version` short of it means
    /// more events are waiting.
    pub head: u64,
}

impl StreamBatch {
    /// Whether the stream has delivered the whole of a finished game.
    pub fn ends_the_game(&self, position: u64) -> bool {
        self.status.finished && position == self.version
    }
}

/// Why a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Woken {
    /// The game may have moved: read.
    Moved,
    /// The instance's heartbeat ticked: send one. `read` says whether the
    /// log should be read too (announcements may have been missed: no
    /// listening connection is up).
    Heartbeat { read: bool },
    /// The instance is stopping: end the stream (the client resumes
    /// elsewhere, or here once the instance is back).
    Stopping,
}

//! The application layer of Umpire, without HTTP: what creating a game,
//! submitting an action, reading a game as a viewer and moving archives in
//! and out mean, on top of the pure games (`umpire-domain`, the games'
//! crates) and the event store (`umpire-storage`).
//!
//! The API crate adapts HTTP requests to these calls and maps
//! [`ServiceError`] to statuses in one place; nothing here knows a status,
//! a header or a route.

pub mod access;
pub mod archives;
mod attempt;
mod background;
pub mod budget;
mod charged_lru;
pub mod client_address;
pub mod codes;
mod cold_folds;
pub mod error;
mod event_log;
mod fold;
mod folds;
pub mod game_stream;
pub mod games;
mod grants;
pub mod import;
pub mod invitation_codes;
pub mod invitations;
pub mod listing;
pub mod live;
pub mod log_every;
mod log_length;
pub mod metrics;
pub mod model;
mod projection;
pub mod reads;
pub mod replicas;
pub mod schemas;
pub mod seat_devices;
mod snapshots;
mod stopping;
mod submit;
pub mod throttle;
pub mod timekeeper;
pub mod turns;

pub use archives::PagedRejections;
pub use budget::{Charge, MemoryBudget, Reservation};
pub use client_address::ClientAddress;
pub use error::{ErrorBody, ServiceError};
pub use fold::LoadedGame;
pub use fold::CHECKPOINT_EVERY;
pub use folds::FoldProbe;
pub use game_stream::{GameStream, StreamItem};
pub use games::{GameService, ServiceLimits};
pub use grants::Credential;
pub use import::{ImportLine, ImportPace, ImportTotals};
pub use live::{Follower, RenderedEvent, StreamBatch, StreamClient, StreamLimits, Woken};
pub use log_length::MAX_EVENTS_PER_GAME;
pub use metrics::Metrics;
pub use replicas::{ReadAt, ReplicaSettings};
pub use seat_devices::Presented;

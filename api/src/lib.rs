//! The HTTP API and the `umpire` command line: the composition root that wires
//! the games registry, the event store, the service layer and actix-web
//! together.
//!
//! Only this crate knows HTTP: service errors are mapped to statuses in one
//! place, [`error::ApiError`].

pub mod auth;
pub mod body_deadline;
pub mod cli;
pub mod client_address;
pub mod commands;
pub mod connections;
pub mod database;
pub mod error;
pub mod json_body;
pub mod log_lines;
pub mod metrics;
pub mod openapi;
pub mod params;
pub mod request_span;
pub mod routes;
pub mod seat_cookie;
pub mod security_headers;
pub mod startup;
pub mod stop_signal;
pub mod wrong_method;

pub use startup::{AppState, Application, ServiceOptions};

//! The HTTP API and the `umpire` command line: the composition root that wires
//! the games registry, the event store and actix-web together.
//!
//! Only this crate knows HTTP: domain violations and store errors are mapped
//! to statuses in one place, [`error::ApiError`].

pub mod auth;
pub mod body_deadline;
pub mod cli;
pub mod commands;
pub mod database;
pub mod error;
pub mod log_lines;
pub mod metrics;
pub mod model;
pub mod openapi;
pub mod request_span;
pub mod routes;
pub mod schemas;
pub mod service;
pub mod startup;
pub mod throttle;
pub mod turns;

pub use startup::{AppState, Application, ServiceOptions};

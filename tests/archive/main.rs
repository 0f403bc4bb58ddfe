//! Archives as files: the format, replay validation and tampering, the
//! audit, what-if and bulk scoring. Archives through the database and over
//! HTTP are tested with the service (`tests/service`) and the API
//! (`tests/http/archives*.rs`).

mod audit;
pub mod earlier_builds;
mod import;
mod reading;
mod replay;
mod rulings;
mod scoring;
mod seat_tokens;
mod support;
mod what_if;

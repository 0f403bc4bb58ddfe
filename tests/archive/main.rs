//! Archives end to end: the format, replay validation and tampering, the
//! audit, what-if, bulk scoring from files, and — against real PostgreSQL and
//! a real HTTP server on a real port — import, export, `score --db` and the
//! umpire-only endpoints.

mod audit;
mod bounded;
mod database;
mod http;
mod rejections;
mod replay;
mod scoring;
mod support;
mod what_if;

//! The service layer against real PostgreSQL (one private cluster for this
//! test binary, a fresh database per test), without HTTP.

#[path = "../archive/support.rs"]
mod archive_support;
mod archives;
mod earlier_builds;
mod games_ended_before_v8;
mod limits;
mod module_graph;
mod pages;
mod streams;

//! The HTTP API through the real actix server on a real port, against real
//! PostgreSQL (one private cluster for this test binary, a fresh database per
//! test).

mod authorization;
mod bad_input;
mod concurrency;
mod documents;
mod hidden_information;
mod playing;
mod refusals;
mod retries;
mod support;

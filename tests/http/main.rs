//! The HTTP API through the real actix server on a real port, against real
//! PostgreSQL (one private cluster for this test binary, a fresh database per
//! test).

#[path = "../archive/support.rs"]
mod archive_support;
mod archives;
mod archives_bounded;
mod archives_rejections;
mod authorization;
mod bad_input;
mod cli_bounds;
mod cli_like_cargo;
mod cli_manners;
mod clock;
mod clock_waits;
mod codes_statuses;
mod cold_folds;
mod commands;
mod concurrency;
mod connections;
mod documents;
mod game_names;
mod games_list;
mod hidden_information;
mod idempotency_scope;
mod import_refusals;
mod invitations;
mod kept_alive;
mod logging;
mod long_logs;
mod memory_budget;
mod messages;
mod metrics_bounds;
mod page_headers;
mod playing;
mod refusals;
mod refusals_audited;
mod replicas;
mod retries;
mod rules;
mod seat_devices;
mod streams;
mod support;
mod umpire_tools;
mod viewer;
mod wrong_methods;

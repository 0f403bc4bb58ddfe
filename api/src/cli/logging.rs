//! What `umpire` logs on standard error: quiet by default for the commands
//! (warnings only, so that a score or an import prints its data and its
//! summary and nothing else), `serve`'s own doings at INFO; `-v` and `-q`
//! move a step either way, and `UMPIRE_LOG` replaces it all.

use tracing_subscriber::{fmt, EnvFilter};

/// Umpire's own crates, at a step above their dependencies: a PostgreSQL
/// `NOTICE` (logged by tokio-postgres at INFO) is never the operator's
/// business unless asked for.
const OWN_CRATES: [&str; 4] = [
    "umpire_api",
    "umpire_service",
    "umpire_storage",
    "umpire_archive",
];

/// The filter for a verbosity: the command's default (0 for the commands,
/// 1 for `serve`) plus `-v`s, less `-q`s.
pub fn filter_for(verbosity: i16) -> String {
    let (ours, theirs) = match verbosity {
        ..=-2 => ("off", "off"),
        -1 => ("error", "error"),
        0 => ("warn", "warn"),
        1 => ("info", "warn"),
        2 => ("debug", "info"),
        _ => ("trace", "debug"),
    };
    let mut filter = theirs.to_string();
    for name in OWN_CRATES {
        filter.push_str(&format!(",{name}={ours}"));
    }
    filter
}

/// Logs to standard error, filtered by `UMPIRE_LOG` if set, else by
/// `verbosity` (see [`filter_for`]).
pub fn init_tracing(verbosity: i16) {
    let filter = EnvFilter::try_from_env("UMPIRE_LOG")
        .unwrap_or_else(|_| EnvFilter::new(filter_for(verbosity)));
    // Standard error: standard output carries the data (an export, an
    // audit, rows), which must stay valid JSON or CSV.
    let writer = crate::log_lines::EscapedLines(std::io::stderr);
    if std::env::var("UMPIRE_LOG_FORMAT").as_deref() == Ok("json") {
        fmt()
            .with_env_filter(filter)
            .json()
            .with_writer(writer)
            .init();
    } else {
        // No colours: every control character in a record is escaped, so
        // that nothing a client sent can forge a line or drive a terminal.
        fmt()
            .with_env_filter(filter)
            .with_ansi(false)
            .fmt_fields(crate::log_lines::PlainFields)
            .with_writer(writer)
            .init();
    }
}

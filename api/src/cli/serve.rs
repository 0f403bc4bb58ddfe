//! `umpire serve`: the admin token (from the arguments, the environment or
//! a file), the database, migrations and the HTTP server, with SIGINT and
//! SIGTERM listened for from the very start (`stop_signal.rs`).

use std::path::Path;

use anyhow::{bail, Context};
use umpire_storage::{EventStore, GroupCommitLimits};

use crate::database::{self, StoppedBeforeServing};
use crate::routes::stream::StreamLimits;
use crate::startup::{Application, ServiceOptions};
use crate::stop_signal::StopSignals;

/// `serve`'s settings, as given on the command line.
pub struct ServeCommand {
    pub bind: String,
    pub data_dir: std::path::PathBuf,
    pub pool_size: usize,
    /// Seconds a request waits for a database connection.
    pub pool_wait: f64,
    pub workers: Option<usize>,
    pub append_writers: usize,
    pub admin_token: Option<String>,
    pub admin_token_file: Option<std::path::PathBuf>,
    pub admin_token_in_arguments: bool,
    pub max_streams: usize,
    pub max_streams_per_client: usize,
    pub connections: crate::connections::ConnectionLimits,
    pub max_streams_per_address: usize,
    pub creations_per_minute: u32,
    pub memory_budget: u64,
    pub replicas: Vec<String>,
    pub replica_max_lag: f64,
    pub trusted_proxies: Vec<std::net::IpAddr>,
}

/// Runs the service until a stop signal; the private cluster it started,
/// if any, is stopped after the server.
pub async fn serve(command: ServeCommand) -> anyhow::Result<()> {
    // Listened for from the very start: see stop_signal.rs.
    let mut stop = StopSignals::listen().context("could not listen for SIGINT and SIGTERM")?;
    let admin_token = admin_token_of(
        command.admin_token,
        command.admin_token_file.as_deref(),
        command.admin_token_in_arguments,
    )?;
    let database = database::open_unless_stopped(&command.data_dir, &mut stop).await?;
    if admin_token.as_deref().is_none_or(str::is_empty) {
        tracing::warn!("no admin token configured: anyone can create and import games (set UMPIRE_ADMIN_TOKEN to restrict)");
    }
    let migrated = umpire_storage::migrate(&database.owner_url);
    // Until the HTTP server runs (it then handles the signals itself), a
    // stop signal ends startup; a migration cut short rolls back.
    tokio::select! {
        migrated = migrated => migrated.context("migrations failed")?,
        signal = stop.received() => return Err(StoppedBeforeServing(signal).into()),
    }
    let pool_wait = std::time::Duration::try_from_secs_f64(command.pool_wait)
        .ok()
        .filter(|wait| !wait.is_zero())
        .context("--pool-wait must be a number of seconds, more than 0")?;
    let pool = umpire_storage::connect_with(
        &database.service_url,
        command.pool_size,
        umpire_storage::PoolTimeouts::waiting(pool_wait),
    )
    .context("connecting to the database")?;
    let group_commit = GroupCommitLimits {
        writers: command.append_writers,
        ..GroupCommitLimits::default()
    };
    let options = ServiceOptions {
        admin_token,
        listen_url: Some(database.service_url.clone()),
        streams: StreamLimits {
            max_open: command.max_streams,
            max_per_client: command.max_streams_per_client,
            max_per_address: command.max_streams_per_address,
            ..Default::default()
        },
        memory_budget: usize::try_from(command.memory_budget).unwrap_or(usize::MAX),
        budget_includes_process: true,
        keep_alive: crate::startup::KEEP_ALIVE,
        request_head_timeout: crate::startup::REQUEST_HEAD_TIMEOUT,
        keep_time: true,
        replicas: replica_settings(
            &command.replicas,
            command.replica_max_lag,
            command.pool_size,
        )?,
        trusted_proxies: command.trusted_proxies,
        connections: command.connections,
        creations_per_minute: command.creations_per_minute,
        ..ServiceOptions::default()
    };
    open_files_for(command.connections.max_open);
    let bind = command.bind;
    let application = Application::build_with(
        EventStore::with_group_commit(pool, group_commit),
        &bind,
        command.workers,
        options,
    )
    .map_err(|error| {
        if error.kind() == std::io::ErrorKind::AddrInUse {
            anyhow::anyhow!("{bind} is already in use: pass another address with --bind")
        } else {
            anyhow::Error::new(error).context(format!("could not listen on {bind}"))
        }
    })?;
    tracing::info!(
        "listening on http://{bind} (port {}); Swagger UI at /docs/, spec at /openapi.json",
        application.port()
    );
    application
        .run_until_signalled(stop)
        .await
        .context("the HTTP server failed")?;
    // The cluster goes after the server (`database` is dropped here).
    drop(database);
    Ok(())
}

/// Raises the open-files limit as far as the system allows, so that the
/// connection cap, not the descriptor table, is what turns clients away:
/// at the limit, accepting fails with `Too many open files` for every
/// client, the database's new connections and the log files among them.
fn open_files_for(max_connections: usize) {
    // Descriptors besides the connections': the pool, the listener, the
    // cluster's pipes, the log.
    const BESIDES_CONNECTIONS: u64 = 256;
    let needed = max_connections as u64 + BESIDES_CONNECTIONS;
    match rlimit::increase_nofile_limit(needed) {
        Ok(limit) if limit < needed => tracing::warn!(
            limit,
            needed,
            "the open-files limit is below what --max-connections needs: lower \
             --max-connections or raise the hard limit (ulimit -Hn)"
        ),
        Ok(_) => {}
        Err(error) => tracing::warn!(%error, "could not raise the open-files limit"),
    }
}

/// The standbys `serve` was given, if any.
fn replica_settings(
    replicas: &[String],
    max_lag_seconds: f64,
    pool_size: usize,
) -> anyhow::Result<Option<umpire_service::ReplicaSettings>> {
    let urls: Vec<String> = replicas
        .iter()
        .map(|url| url.trim().to_string())
        .filter(|url| !url.is_empty())
        .collect();
    if urls.is_empty() {
        return Ok(None);
    }
    let max_lag = std::time::Duration::try_from_secs_f64(max_lag_seconds)
        .map_err(|_| anyhow::anyhow!("--replica-max-lag must be a number of seconds, 0 or more"))?;
    tracing::info!(
        standbys = urls.len(),
        "reads naming a version may be answered by standbys"
    );
    Ok(Some(umpire_service::ReplicaSettings {
        urls,
        pool_size,
        max_lag,
    }))
}

/// The admin token `serve` was given, from the command line, the
/// environment or a file; warns when it was typed as an argument.
fn admin_token_of(
    token: Option<String>,
    token_file: Option<&Path>,
    token_in_arguments: bool,
) -> anyhow::Result<Option<String>> {
    if let Some(path) = token_file {
        return read_admin_token_file(path).map(Some);
    }
    if token_in_arguments && token.as_deref().is_some_and(|token| !token.is_empty()) {
        tracing::warn!(
            "the admin token was given with --admin-token: every local account can read it in \
             /proc/{}/cmdline (and `ps`); pass --admin-token-file or set UMPIRE_ADMIN_TOKEN instead",
            std::process::id()
        );
    }
    Ok(token)
}

/// Longest admin token file read: a token is a line, not a document.
const MAX_ADMIN_TOKEN_FILE_BYTES: u64 = 64 * 1024;

/// The token in `path`, without one trailing newline (`\n` or `\r\n`), as
/// `echo token > file` writes it. An empty token, or one spread over
/// several lines, could never be sent as a Bearer header: refused.
///
/// A file other local accounts may read or write is refused, as ssh
/// refuses such a private key: the token creates games and reads every
/// seat's secrets. (Kubernetes mounts secrets 0644 unless told
/// `defaultMode: 0400`.)
fn read_admin_token_file(path: &Path) -> anyhow::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::PermissionsExt;
    let named = || format!("reading the admin token file {}", path.display());
    let mut text = String::new();
    let file = std::fs::File::open(path).with_context(named)?;
    let mode = file.metadata().with_context(named)?.permissions().mode();
    if mode & 0o007 != 0 {
        bail!(
            "the admin token file {} may be read or written by every local account (mode {:o}): \
             `chmod 600` it (or 400), so that only the service's account can",
            path.display(),
            mode & 0o777
        );
    }
    file.take(MAX_ADMIN_TOKEN_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .with_context(named)?;
    if text.len() as u64 > MAX_ADMIN_TOKEN_FILE_BYTES {
        bail!(
            "the admin token file {} is larger than {MAX_ADMIN_TOKEN_FILE_BYTES} bytes: it should hold one line, the token",
            path.display()
        );
    }
    let token = text
        .strip_suffix("\r\n")
        .or_else(|| text.strip_suffix('\n'))
        .unwrap_or(&text);
    if token.is_empty() {
        bail!(
            "the admin token file {} is empty: write the token in it (one line)",
            path.display()
        );
    }
    if token.contains(['\n', '\r']) {
        bail!(
            "the admin token file {} holds more than one line: it should hold one line, the token",
            path.display()
        );
    }
    Ok(token.to_string())
}

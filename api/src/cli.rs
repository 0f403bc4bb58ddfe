//! The `umpire` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use umpire_storage::{EventStore, GroupCommitLimits};

use uuid::Uuid;

use crate::commands::{self, Done};
use crate::database;
use crate::startup::Application;
use crate::stop_signal::StopSignals;

/// What each exit status means, for every command (also in the README).
const EXIT_CODES: &str = "\
Exit status:
  0  done
  1  failed: the error is on standard error
  2  the command line was wrong (an unknown option, a missing argument)
  3  done in part: some rows could not be scored (score) or some archives were
     refused (import); each is a row or line of the output

Data goes to standard output (or --out), logs and progress to standard error.
Logs: UMPIRE_LOG (a tracing filter, default info), UMPIRE_LOG_FORMAT=json.\n";

#[derive(Debug, Parser)]
#[command(
    name = "umpire",
    version,
    about = "Event-sourced replay and scoring for board games",
    long_about = "Event-sourced replay and scoring for board games: an HTTP service \
        (`umpire serve`) and the commands an umpire or a batch job runs on archives.",
    after_help = EXIT_CODES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Where the database is: `DATABASE_URL`, or the private cluster under the
/// data directory.
#[derive(Debug, Clone, clap::Args)]
pub struct DataDir {
    /// The private PostgreSQL cluster's directory, used when DATABASE_URL is
    /// not set [default: /var/lib/umpire as root, else
    /// $XDG_DATA_HOME/umpire, i.e. ~/.local/share/umpire]. DATABASE_URL
    /// (a postgres:// URL) uses that database instead.
    #[arg(long, env = "UMPIRE_DATA_DIR", value_name = "DIR")]
    data_dir: Option<PathBuf>,
}

impl DataDir {
    /// The directory given, or the one a service's state lives in by
    /// default: never the directory the command happens to run in.
    pub fn path(&self) -> PathBuf {
        self.data_dir.clone().unwrap_or_else(default_data_dir)
    }
}

/// `/var/lib/umpire` as root (the system's place for a service's state, and
/// one the `postgres` user the cluster then runs as can reach); otherwise
/// the user's data directory.
pub fn default_data_dir() -> PathBuf {
    if umpire_storage::cluster::running_as_root() {
        return PathBuf::from("/var/lib/umpire");
    }
    dirs::data_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("umpire")
}

/// A size such as `512MiB`, `2GiB` or a plain number of bytes.
fn parse_bytes(text: &str) -> Result<u64, String> {
    text.trim()
        .parse::<bytesize::ByteSize>()
        .map(|size| size.as_u64())
        .map_err(|error| format!("{error} (a size such as 512MiB or 2GiB)"))
}

/// `--help` for the archive inputs of `score` and `import`: what is read
/// and how it is bounded (archive/src/inputs.rs).
fn inputs_long_help() -> String {
    format!(
        "Files (one archive, or JSON Lines), directories of them, or `-` for standard input.\n\n\
         Directories are walked for .json, .jsonl and .ndjson files without following symbolic \
         links (each link skipped is a warning), so a walk never leaves the directory. Only \
         regular files are read: a FIFO, socket or device is refused unless piped in as `-`. \
         One archive (a line, or a .json file) may be at most {} MiB, as over HTTP; a longer one \
         stops the command with an error naming the file and line.",
        umpire_archive::MAX_ARCHIVE_BYTES / (1024 * 1024)
    )
}

fn game_names() -> String {
    umpire_games::registry()
        .ids()
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP service (holds the terminal; Ctrl-C stops it and the
    /// private cluster it started).
    #[command(after_help = "Example:\n  umpire serve --bind 0.0.0.0:8080\n  \
        DATABASE_URL=postgres://umpire@db/umpire umpire serve")]
    Serve {
        /// The address to listen on (port 0 picks a free one).
        #[arg(long, default_value = "127.0.0.1:8080", env = "UMPIRE_BIND")]
        bind: String,
        #[command(flatten)]
        data: DataDir,
        /// Database connections in the pool.
        #[arg(long, default_value_t = 16, env = "UMPIRE_POOL_SIZE")]
        pool_size: usize,
        /// HTTP worker threads (default: one per core).
        #[arg(long, env = "UMPIRE_WORKERS")]
        workers: Option<usize>,
        /// Statements appending events at once; appends arriving while all
        /// are busy share the next statement (group commit).
        #[arg(long, default_value_t = GroupCommitLimits::default().writers, env = "UMPIRE_APPEND_WRITERS")]
        append_writers: usize,
        /// When set, creating and importing games needs this token as a
        /// Bearer token; without it game creation is open to anyone. On the
        /// command line it is readable by every local account (in
        /// /proc/PID/cmdline, `ps`): prefer --admin-token-file or the
        /// environment variable.
        #[arg(
            long,
            env = "UMPIRE_ADMIN_TOKEN",
            hide_env_values = true,
            conflicts_with = "admin_token_file"
        )]
        admin_token: Option<String>,
        /// Read the admin token from this file (one trailing newline is
        /// dropped; an empty file is refused). Keep it readable by the
        /// service's account only.
        #[arg(long, env = "UMPIRE_ADMIN_TOKEN_FILE", value_name = "FILE")]
        admin_token_file: Option<PathBuf>,
        /// Live event streams (`/v1/games/{id}/stream`) this instance holds
        /// open at once; beyond, a new one is answered 503 with Retry-After.
        #[arg(long, default_value_t = umpire_service::live::DEFAULT_MAX_STREAMS, env = "UMPIRE_MAX_STREAMS")]
        max_streams: usize,
        /// Live streams one client holds open at once, counted by token, or
        /// by address for spectators; beyond, 429 `too_many_streams`.
        #[arg(long, default_value_t = umpire_service::live::DEFAULT_MAX_STREAMS_PER_CLIENT, env = "UMPIRE_MAX_STREAMS_PER_CLIENT")]
        max_streams_per_client: usize,
        /// Memory the process may use (e.g. 512MiB, 2GiB): what it holds at
        /// start, plus the fold cache, live streams, archive bodies and
        /// audits, each charged in bytes. Caches give way first; a request
        /// that still does not fit is answered 503 `busy` with Retry-After.
        #[arg(long, default_value = "512MiB", env = "UMPIRE_MEMORY_BUDGET", value_parser = parse_bytes)]
        memory_budget: u64,
    },
    /// Apply pending database migrations and exit (serve does it too).
    #[command(after_help = "Example:\n  umpire migrate --data-dir /srv/umpire")]
    Migrate {
        #[command(flatten)]
        data: DataDir,
    },
    /// Print the OpenAPI document (JSON) on standard output.
    #[command(after_help = "Example:\n  umpire openapi > openapi.json")]
    Openapi,
    /// Audit a game by replay: the hash chain, every action re-decided with
    /// today's rules, the rejected attempts; prints the report as JSON.
    #[command(
        after_help = "Examples:\n  umpire audit 6f1c2a54-8d0e-4a43-9b0a-3c1f5e2d7a90 > audit.json\n  \
        umpire audit --file game.json\n  \
        umpire audit --file games.jsonl   # one report per line (JSON Lines)"
    )]
    Audit {
        /// The id of a stored game (or give --file).
        game_id: Option<Uuid>,
        /// An archive file instead of a stored game: one archive (JSON), or
        /// JSON Lines of archives, each audited in turn.
        #[arg(long, conflicts_with = "game_id", value_name = "FILE")]
        file: Option<PathBuf>,
        #[command(flatten)]
        data: DataDir,
    },
    /// Re-run a game's actions under other options and report where its
    /// outcome changes (JSON).
    #[command(
        after_help = "Example:\n  umpire what-if --file game.json --options '{\"dm_advantage\": \"blue\"}'"
    )]
    WhatIf {
        /// The id of a stored game (or give --file).
        game_id: Option<Uuid>,
        /// An archive file (one archive) instead of a stored game.
        #[arg(long, conflicts_with = "game_id", value_name = "FILE")]
        file: Option<PathBuf>,
        /// A JSON merge patch over the game's options.
        #[arg(long, value_name = "JSON")]
        options: String,
        #[command(flatten)]
        data: DataDir,
    },
    /// Export stored games as archives, one JSON line per game.
    #[command(
        after_help = "Examples:\n  umpire export 6f1c2a54-8d0e-4a43-9b0a-3c1f5e2d7a90 > game.jsonl\n  \
        umpire export --all --out season.jsonl"
    )]
    Export {
        /// Ids of the games to export (or give --all).
        game_ids: Vec<Uuid>,
        /// Every stored game, streamed in game id order.
        #[arg(long)]
        all: bool,
        /// Write here instead of standard output.
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
        #[command(flatten)]
        data: DataDir,
    },
    /// Import archives, each validated by replay and stored whole (or not at
    /// all); prints one JSON line per game: its new tokens, or why it was
    /// refused.
    #[command(after_help = "Examples:\n  umpire import season.jsonl archives/\n  \
        umpire export --all | umpire import --data-dir /srv/other -")]
    Import {
        /// Files (one archive, or JSON Lines), directories of them, or `-`
        /// for standard input.
        #[arg(required = true, value_name = "INPUT", long_help = inputs_long_help())]
        inputs: Vec<String>,
        #[command(flatten)]
        data: DataDir,
    },
    /// Write random legal games as archives (JSON Lines).
    #[command(
        after_help = "Example:\n  umpire simulate --game all --count 1000 --seed 7 --out games.jsonl"
    )]
    Simulate {
        /// The game to play, or `all` for each in turn.
        #[arg(long, long_help = format!("The game to play, or `all` for each in turn: {}.", game_names()))]
        game: String,
        /// How many games of each game named: with `--game all`, this many
        /// of every registered game.
        #[arg(long, default_value_t = 1)]
        count: u64,
        /// The run's seed: the same seed writes the same games.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The games' options as JSON (`null`: each game's defaults).
        #[arg(long, default_value = "null", value_name = "JSON")]
        options: String,
        /// Stop a game that has not ended after this many actions.
        #[arg(long, default_value_t = umpire_archive::simulate::DEFAULT_MAX_ACTIONS)]
        max_actions: usize,
        /// Write here instead of standard output.
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Score archives in bulk (files, directories, `-`) or every stored game
    /// (--db): one row per game, in parallel, streamed.
    #[command(after_help = "Examples:\n  umpire score season.jsonl > scores.csv\n  \
        umpire score --db --format jsonl --out scores.jsonl\n\n\
        A game that cannot be scored is a row with its error; the status is then 3.")]
    Score {
        /// Files (one archive, or JSON Lines), directories of them, or `-`.
        #[arg(value_name = "INPUT", long_help = inputs_long_help())]
        inputs: Vec<String>,
        /// Score every game in the database instead of files.
        #[arg(long, conflicts_with = "inputs")]
        db: bool,
        /// The rows' format.
        #[arg(long, default_value = "csv")]
        format: umpire_archive::OutputFormat,
        /// Leave out games that are not finished (error rows stay).
        #[arg(long)]
        finished_only: bool,
        /// Scoring threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        /// Write here instead of standard output.
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
        #[command(flatten)]
        data: DataDir,
    },
}

fn init_tracing() {
    use tracing_subscriber::{fmt, EnvFilter};
    let filter = EnvFilter::try_from_env("UMPIRE_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
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
            .with_writer(writer)
            .init();
    }
}

pub fn main() -> ExitCode {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    // A token typed on the command line is in /proc/PID/cmdline for every
    // local account to read; one from the environment or a file is not.
    let admin_token_in_arguments = matches
        .subcommand_matches("serve")
        .and_then(|serve| serve.value_source("admin_token"))
        == Some(clap::parser::ValueSource::CommandLine);
    if let Command::Openapi = cli.command {
        print!("{}", crate::openapi::document_json());
        return ExitCode::SUCCESS;
    }
    init_tracing();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("umpire: could not start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli.command, admin_token_in_arguments)) {
        Ok(Done::All) => ExitCode::SUCCESS,
        Ok(Done::InPart) => ExitCode::from(3),
        Err(failure) => {
            eprintln!("umpire: {}", failure.message);
            ExitCode::from(failure.status)
        }
    }
}

/// Why a command failed, and the exit status that says so.
#[derive(Debug)]
pub struct Failure {
    message: String,
    status: u8,
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure { message, status: 1 }
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Self {
        message.to_string().into()
    }
}

impl From<database::StartupFailure> for Failure {
    fn from(failure: database::StartupFailure) -> Self {
        match failure {
            database::StartupFailure::Failed(message) => message.into(),
            database::StartupFailure::Stopped(signal) => Failure {
                message: format!(
                    "stopped by {} before the service started; nothing was served \
                     (the private cluster this start began is stopped)",
                    signal.name()
                ),
                status: signal.exit_status(),
            },
        }
    }
}

/// The admin token `serve` was given, from the command line, the
/// environment or a file; warns when it was typed as an argument.
fn admin_token_of(
    token: Option<String>,
    token_file: Option<&std::path::Path>,
    token_in_arguments: bool,
) -> Result<Option<String>, String> {
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
fn read_admin_token_file(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let named = |e: std::io::Error| format!("reading the admin token file {}: {e}", path.display());
    let mut text = String::new();
    std::fs::File::open(path)
        .map_err(named)?
        .take(MAX_ADMIN_TOKEN_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(named)?;
    if text.len() as u64 > MAX_ADMIN_TOKEN_FILE_BYTES {
        return Err(format!(
            "the admin token file {} is larger than {MAX_ADMIN_TOKEN_FILE_BYTES} bytes: it should hold one line, the token",
            path.display()
        ));
    }
    let token = text
        .strip_suffix("\r\n")
        .or_else(|| text.strip_suffix('\n'))
        .unwrap_or(&text);
    if token.is_empty() {
        return Err(format!(
            "the admin token file {} is empty: write the token in it (one line)",
            path.display()
        ));
    }
    if token.contains(['\n', '\r']) {
        return Err(format!(
            "the admin token file {} holds more than one line: it should hold one line, the token",
            path.display()
        ));
    }
    Ok(token.to_string())
}

async fn run(command: Command, admin_token_in_arguments: bool) -> Result<Done, Failure> {
    match command {
        Command::Serve {
            bind,
            data,
            pool_size,
            workers,
            append_writers,
            admin_token,
            admin_token_file,
            max_streams,
            max_streams_per_client,
            memory_budget,
        } => {
            // Listened for from the very start: see stop_signal.rs.
            let mut stop = StopSignals::listen()
                .map_err(|e| format!("could not listen for SIGINT and SIGTERM: {e}"))?;
            let admin_token = admin_token_of(
                admin_token,
                admin_token_file.as_deref(),
                admin_token_in_arguments,
            )?;
            let database = database::open_unless_stopped(&data.path(), &mut stop).await?;
            let limits = GroupCommitLimits {
                writers: append_writers,
                ..GroupCommitLimits::default()
            };
            let outcome = serve(
                &database,
                &bind,
                pool_size,
                limits,
                workers,
                crate::startup::ServiceOptions {
                    admin_token,
                    listen_url: Some(database.service_url.clone()),
                    streams: crate::routes::stream::StreamLimits {
                        max_open: max_streams,
                        max_per_client: max_streams_per_client,
                        ..Default::default()
                    },
                    memory_budget: usize::try_from(memory_budget).unwrap_or(usize::MAX),
                    budget_includes_process: true,
                    keep_alive: crate::startup::KEEP_ALIVE,
                },
                &mut stop,
            )
            .await;
            if let Some(cluster) = database.cluster.as_ref() {
                database::stop_if_started_here(cluster);
            }
            outcome.map(|()| Done::All)
        }
        Command::Migrate { data } => {
            let database = database::open(&data.path()).await?;
            let outcome = umpire_storage::migrate(&database.owner_url)
                .await
                .map_err(|e| e.to_string());
            stop_private_cluster(Some(&database));
            outcome?;
            tracing::info!("migrations applied");
            Ok(Done::All)
        }
        Command::Openapi => Ok(Done::All),
        Command::Audit {
            game_id,
            file,
            data,
        } => {
            let (source, database) = archive_source(game_id, file, &data).await?;
            let outcome = commands::audit(source).await;
            stop_private_cluster(database.as_ref());
            Ok(outcome.map(|()| Done::All)?)
        }
        Command::WhatIf {
            game_id,
            file,
            options,
            data,
        } => {
            let (source, database) = archive_source(game_id, file, &data).await?;
            let outcome = commands::what_if(source, &options).await;
            stop_private_cluster(database.as_ref());
            Ok(outcome.map(|()| Done::All)?)
        }
        Command::Export {
            game_ids,
            all,
            out,
            data,
        } => {
            if game_ids.is_empty() && !all {
                return Err("export what? Name one or more game ids, or pass --all".into());
            }
            let database = database::open_existing(&data.path()).await?;
            let outcome =
                commands::export(&database.service_url, &game_ids, all, out.as_deref()).await;
            stop_private_cluster(Some(&database));
            Ok(outcome.map(|()| Done::All)?)
        }
        Command::Import { inputs, data } => {
            let database = database::open(&data.path()).await?;
            let outcome = match umpire_storage::migrate(&database.owner_url).await {
                Ok(()) => commands::import(&database.service_url, &inputs).await,
                Err(error) => Err(error.to_string()),
            };
            stop_private_cluster(Some(&database));
            Ok(outcome?)
        }
        Command::Simulate {
            game,
            count,
            seed,
            options,
            max_actions,
            out,
        } => Ok(tokio::task::block_in_place(|| {
            commands::simulate(&game, count, seed, &options, max_actions, out.as_deref())
        })
        .map(|()| Done::All)?),
        Command::Score {
            inputs,
            db,
            format,
            finished_only,
            threads,
            out,
            data,
        } => {
            if !db && inputs.is_empty() {
                return Err("score what? Name files, directories or `-`, or pass --db".into());
            }
            let database = if db {
                Some(database::open_existing(&data.path()).await?)
            } else {
                None
            };
            let outcome = commands::score(commands::ScoreCommand {
                inputs,
                database: database.as_ref().map(|d| d.service_url.clone()),
                format,
                finished_only,
                threads,
                out,
            })
            .await;
            stop_private_cluster(database.as_ref());
            Ok(outcome?)
        }
    }
}

async fn archive_source(
    game_id: Option<Uuid>,
    file: Option<PathBuf>,
    data: &DataDir,
) -> Result<(commands::ArchiveSource, Option<database::Database>), String> {
    match (game_id, file) {
        (_, Some(path)) => Ok((commands::ArchiveSource::File(path), None)),
        (Some(game_id), None) => {
            let database = database::open_existing(&data.path()).await?;
            let source = commands::ArchiveSource::Database {
                url: database.service_url.clone(),
                game_id,
            };
            Ok((source, Some(database)))
        }
        (None, None) => Err("which game? Name a game id, or pass --file".into()),
    }
}

/// Stops the private cluster a command started for itself.
fn stop_private_cluster(database: Option<&database::Database>) {
    if let Some(cluster) = database.and_then(|d| d.cluster.as_ref()) {
        database::stop_if_started_here(cluster);
    }
}

async fn serve(
    database: &database::Database,
    bind: &str,
    pool_size: usize,
    group_commit: GroupCommitLimits,
    workers: Option<usize>,
    options: crate::startup::ServiceOptions,
    stop: &mut StopSignals,
) -> Result<(), Failure> {
    if options.admin_token.as_deref().is_none_or(str::is_empty) {
        tracing::warn!("no admin token configured: anyone can create and import games (set UMPIRE_ADMIN_TOKEN to restrict)");
    }
    let migrated = umpire_storage::migrate(&database.owner_url);
    // Until the HTTP server runs (it then handles the signals itself), a
    // stop signal ends startup; a migration cut short rolls back.
    tokio::select! {
        migrated = migrated => migrated.map_err(|e| format!("migrations failed: {e}"))?,
        signal = stop.received() => {
            return Err(database::StartupFailure::Stopped(signal).into());
        }
    }
    let pool =
        umpire_storage::connect(&database.service_url, pool_size).map_err(|e| e.to_string())?;
    let application = Application::build_with(
        EventStore::with_group_commit(pool, group_commit),
        bind,
        workers,
        options,
    )
    .map_err(|error| {
        if error.kind() == std::io::ErrorKind::AddrInUse {
            format!("{bind} is already in use: pass another address with --bind")
        } else {
            format!("could not listen on {bind}: {error}")
        }
    })?;
    tracing::info!(
        "listening on http://{bind} (port {}); Swagger UI at /docs/, spec at /openapi.json",
        application.port()
    );
    Ok(application
        .run_until_stopped()
        .await
        .map_err(|e| e.to_string())?)
}

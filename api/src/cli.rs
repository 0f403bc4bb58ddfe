//! The `umpire` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use umpire_storage::{EventStore, GroupCommitLimits};

use uuid::Uuid;

use crate::commands;
use crate::database;
use crate::startup::Application;

#[derive(Debug, Parser)]
#[command(
    name = "umpire",
    version,
    about = "Event-sourced replay and scoring for board games"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP service. Uses DATABASE_URL if set, else a private
    /// PostgreSQL cluster under --data-dir.
    Serve {
        #[arg(long, default_value = "127.0.0.1:8080", env = "UMPIRE_BIND")]
        bind: String,
        #[arg(long, default_value = ".umpire", env = "UMPIRE_DATA_DIR")]
        data_dir: PathBuf,
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
        /// Bearer token; without it game creation is open to anyone.
        #[arg(long, env = "UMPIRE_ADMIN_TOKEN", hide_env_values = true)]
        admin_token: Option<String>,
    },
    /// Apply pending database migrations and exit.
    Migrate {
        #[arg(long, default_value = ".umpire", env = "UMPIRE_DATA_DIR")]
        data_dir: PathBuf,
    },
    /// Print the OpenAPI document.
    Openapi,
    /// Audit a game by replay: chain, every action re-decided, rejections.
    Audit {
        /// The game id (read from the database), or `--file`.
        game_id: Option<Uuid>,
        /// Audit an archive file instead of a stored game.
        #[arg(long, conflicts_with = "game_id")]
        file: Option<PathBuf>,
        #[arg(long, default_value = ".umpire", env = "UMPIRE_DATA_DIR")]
        data_dir: PathBuf,
    },
    /// Re-run a game's actions under other options (a JSON merge patch).
    WhatIf {
        game_id: Option<Uuid>,
        #[arg(long, conflicts_with = "game_id")]
        file: Option<PathBuf>,
        /// e.g. '{"broken_tree": "minus_twenty"}'
        #[arg(long)]
        options: String,
        #[arg(long, default_value = ".umpire", env = "UMPIRE_DATA_DIR")]
        data_dir: PathBuf,
    },
    /// Export games as archives (JSON Lines).
    Export {
        game_ids: Vec<Uuid>,
        /// Every stored game, streamed.
        #[arg(long)]
        all: bool,
        #[arg(long, short)]
        out: Option<PathBuf>,
        #[arg(long, default_value = ".umpire", env = "UMPIRE_DATA_DIR")]
        data_dir: PathBuf,
    },
    /// Import archives (files, directories, `-`), each validated by replay.
    Import {
        #[arg(required = true)]
        inputs: Vec<String>,
        #[arg(long, default_value = ".umpire", env = "UMPIRE_DATA_DIR")]
        data_dir: PathBuf,
    },
    /// Write random legal games as archives (JSON Lines).
    Simulate {
        /// A game id, or `all`.
        #[arg(long)]
        game: String,
        #[arg(long, default_value_t = 1)]
        count: u64,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long, default_value = "null")]
        options: String,
        #[arg(long, default_value_t = umpire_archive::simulate::DEFAULT_MAX_ACTIONS)]
        max_actions: usize,
        #[arg(long, short)]
        out: Option<PathBuf>,
    },
    /// Score archives in bulk (files, directories, `-`) or every stored game.
    Score {
        inputs: Vec<String>,
        /// Score every game in the database instead of files.
        #[arg(long, conflicts_with = "inputs")]
        db: bool,
        /// csv or jsonl
        #[arg(long, default_value = "csv")]
        format: umpire_archive::OutputFormat,
        /// Leave out games that are not finished (error rows stay).
        #[arg(long)]
        finished_only: bool,
        /// Scoring threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        #[arg(long, short)]
        out: Option<PathBuf>,
        #[arg(long, default_value = ".umpire", env = "UMPIRE_DATA_DIR")]
        data_dir: PathBuf,
    },
}

fn init_tracing() {
    use tracing_subscriber::{fmt, EnvFilter};
    let filter = EnvFilter::try_from_env("UMPIRE_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let writer = crate::log_lines::EscapedLines(std::io::stdout);
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
    let cli = Cli::parse();
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
    match runtime.block_on(run(cli.command)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("umpire: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Serve {
            bind,
            data_dir,
            pool_size,
            workers,
            append_writers,
            admin_token,
        } => {
            let database = database::open(&data_dir).await?;
            let limits = GroupCommitLimits {
                writers: append_writers,
                ..GroupCommitLimits::default()
            };
            let outcome = serve(&database, &bind, pool_size, limits, workers, admin_token).await;
            if let Some(cluster) = database.cluster.as_ref().filter(|c| c.started_here) {
                tracing::info!("stopping the private PostgreSQL cluster");
                if let Err(error) = tokio::task::block_in_place(|| cluster.stop()) {
                    tracing::warn!(%error, "could not stop the private cluster cleanly");
                }
            }
            outcome
        }
        Command::Migrate { data_dir } => {
            let database = database::open(&data_dir).await?;
            umpire_storage::migrate(&database.owner_url)
                .await
                .map_err(|e| e.to_string())?;
            tracing::info!("migrations applied");
            if let Some(cluster) = database.cluster.as_ref().filter(|c| c.started_here) {
                tokio::task::block_in_place(|| cluster.stop()).map_err(|e| e.to_string())?;
            }
            Ok(())
        }
        Command::Openapi => Ok(()),
        Command::Audit {
            game_id,
            file,
            data_dir,
        } => {
            let (source, database) = archive_source(game_id, file, &data_dir).await?;
            let outcome = commands::audit(source).await;
            stop_private_cluster(database.as_ref());
            outcome
        }
        Command::WhatIf {
            game_id,
            file,
            options,
            data_dir,
        } => {
            let (source, database) = archive_source(game_id, file, &data_dir).await?;
            let outcome = commands::what_if(source, &options).await;
            stop_private_cluster(database.as_ref());
            outcome
        }
        Command::Export {
            game_ids,
            all,
            out,
            data_dir,
        } => {
            let database = database::open(&data_dir).await?;
            let outcome =
                commands::export(&database.service_url, &game_ids, all, out.as_deref()).await;
            stop_private_cluster(Some(&database));
            outcome
        }
        Command::Import { inputs, data_dir } => {
            let database = database::open(&data_dir).await?;
            let outcome = match umpire_storage::migrate(&database.owner_url).await {
                Ok(()) => commands::import(&database.service_url, &inputs).await,
                Err(error) => Err(error.to_string()),
            };
            stop_private_cluster(Some(&database));
            outcome
        }
        Command::Simulate {
            game,
            count,
            seed,
            options,
            max_actions,
            out,
        } => tokio::task::block_in_place(|| {
            commands::simulate(&game, count, seed, &options, max_actions, out.as_deref())
        }),
        Command::Score {
            inputs,
            db,
            format,
            finished_only,
            threads,
            out,
            data_dir,
        } => {
            if !db && inputs.is_empty() {
                return Err("score what? Name files, directories or `-`, or pass --db".into());
            }
            let database = if db {
                Some(database::open(&data_dir).await?)
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
            outcome
        }
    }
}

async fn archive_source(
    game_id: Option<Uuid>,
    file: Option<PathBuf>,
    data_dir: &std::path::Path,
) -> Result<(commands::ArchiveSource, Option<database::Database>), String> {
    match (game_id, file) {
        (_, Some(path)) => Ok((commands::ArchiveSource::File(path), None)),
        (Some(game_id), None) => {
            let database = database::open(data_dir).await?;
            let source = commands::ArchiveSource::Database {
                url: database.service_url.clone(),
                game_id,
            };
            Ok((source, Some(database)))
        }
        (None, None) => Err("name a game id or pass --file".into()),
    }
}

/// Stops the private cluster a command started for itself.
fn stop_private_cluster(database: Option<&database::Database>) {
    if let Some(cluster) = database
        .and_then(|d| d.cluster.as_ref())
        .filter(|c| c.started_here)
    {
        if let Err(error) = tokio::task::block_in_place(|| cluster.stop()) {
            tracing::warn!(%error, "could not stop the private cluster cleanly");
        }
    }
}

async fn serve(
    database: &database::Database,
    bind: &str,
    pool_size: usize,
    group_commit: GroupCommitLimits,
    workers: Option<usize>,
    admin_token: Option<String>,
) -> Result<(), String> {
    if admin_token.as_deref().is_none_or(str::is_empty) {
        tracing::warn!("no admin token configured: anyone can create and import games (set UMPIRE_ADMIN_TOKEN to restrict)");
    }
    let options = crate::startup::ServiceOptions { admin_token };
    umpire_storage::migrate(&database.owner_url)
        .await
        .map_err(|e| format!("migrations failed: {e}"))?;
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
    application
        .run_until_stopped()
        .await
        .map_err(|e| e.to_string())
}

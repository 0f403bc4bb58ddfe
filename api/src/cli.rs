//! The `umpire` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use umpire_storage::EventStore;

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
}

fn init_tracing() {
    use tracing_subscriber::{fmt, EnvFilter};
    let filter = EnvFilter::try_from_env("UMPIRE_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    if std::env::var("UMPIRE_LOG_FORMAT").as_deref() == Ok("json") {
        fmt().with_env_filter(filter).json().init();
    } else {
        // Colours only on a terminal: a log file gets plain text.
        let ansi = std::io::IsTerminal::is_terminal(&std::io::stdout());
        fmt().with_env_filter(filter).with_ansi(ansi).init();
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
            admin_token,
        } => {
            let database = database::open(&data_dir).await?;
            let outcome = serve(&database.url, &bind, pool_size, workers, admin_token).await;
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
            umpire_storage::migrate(&database.url)
                .await
                .map_err(|e| e.to_string())?;
            tracing::info!("migrations applied");
            if let Some(cluster) = database.cluster.as_ref().filter(|c| c.started_here) {
                tokio::task::block_in_place(|| cluster.stop()).map_err(|e| e.to_string())?;
            }
            Ok(())
        }
        Command::Openapi => Ok(()),
    }
}

async fn serve(
    url: &str,
    bind: &str,
    pool_size: usize,
    workers: Option<usize>,
    admin_token: Option<String>,
) -> Result<(), String> {
    if admin_token.as_deref().is_none_or(str::is_empty) {
        tracing::warn!("no admin token configured: anyone can create and import games (set UMPIRE_ADMIN_TOKEN to restrict)");
    }
    let options = crate::startup::ServiceOptions { admin_token };
    umpire_storage::migrate(url)
        .await
        .map_err(|e| format!("migrations failed: {e}"))?;
    let pool = umpire_storage::connect(url, pool_size).map_err(|e| e.to_string())?;
    let application = Application::build_with(EventStore::new(pool), bind, workers, options)
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

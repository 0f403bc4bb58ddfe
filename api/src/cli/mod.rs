//! The `umpire` command line: what each command does with its arguments,
//! its exit status and what it prints besides its data. The options are in
//! `args.rs`, logging in `logging.rs`, `serve` in `serve.rs`, the archive
//! commands in `crate::commands`.

mod args;
mod logging;
mod serve;

pub use args::{default_data_dir, Cli, Command, DataDir, StoredGames};

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use umpire_archive::ChainCheck;
use uuid::Uuid;

use crate::commands::{self, write_stdout, Done};
use crate::database::{self, StoppedBeforeServing};

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
    let printed = match &cli.command {
        Command::Openapi => Some(write_stdout(crate::openapi::document_json().as_bytes())),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "umpire", &mut script);
            Some(write_stdout(&script))
        }
        _ => None,
    };
    if let Some(printed) = printed {
        return match printed {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => failed(error.into()),
        };
    }
    // `serve` says what it does (where it listens) unless asked not to;
    // the other commands print their data and a summary, and log warnings.
    let default = i16::from(matches!(cli.command, Command::Serve { .. }));
    logging::init_tracing(default + i16::from(cli.verbose) - i16::from(cli.quiet));
    let report = Report {
        summary: cli.quiet == 0,
    };
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
    match runtime.block_on(run(cli.command, admin_token_in_arguments, report)) {
        Ok(Done::All) => ExitCode::SUCCESS,
        Ok(Done::InPart) => ExitCode::from(3),
        Err(error) => failed(error),
    }
}

/// The status of SIGPIPE's default action, as a shell reports it (128 + 13).
const CLOSED_PIPE_STATUS: u8 = 128 + 13;

/// Reports a command's failure on standard error; its exit status.
fn failed(error: anyhow::Error) -> ExitCode {
    // `umpire audit --file x | head` closes the pipe on purpose: the command
    // ends there, as `cat` would, with no message and no backtrace. Rust
    // ignores SIGPIPE, so the write fails instead of killing the process,
    // and the commands holding a private cluster stop it on the way out.
    if error.chain().any(is_broken_pipe) {
        return ExitCode::from(CLOSED_PIPE_STATUS);
    }
    // The whole chain, outermost first: what was being done, then why.
    eprintln!("umpire: {error:#}");
    let status = error
        .downcast_ref::<StoppedBeforeServing>()
        .map_or(1, |stopped| stopped.0.exit_status());
    ExitCode::from(status)
}

/// Whether `error`, or an error it wraps, is a write to a closed pipe. A
/// writer (the CSV one) may wrap the I/O error in its own, inside another
/// I/O error: both the chain and the wrapped errors are looked through.
fn is_broken_pipe(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(io) = error.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::BrokenPipe {
                return true;
            }
            if let Some(inner) = io.get_ref() {
                if is_broken_pipe(inner) {
                    return true;
                }
            }
        }
        next = error.source();
    }
    false
}

/// What a command prints on standard error besides logs.
#[derive(Debug, Clone, Copy)]
struct Report {
    /// Summary lines and progress bars (not under `--quiet`).
    summary: bool,
}

impl Report {
    /// Prints a command's closing summary: `text`, or `json` under `--json`.
    fn summary(self, json: bool, text: impl FnOnce() -> String, as_json: impl FnOnce() -> String) {
        if self.summary {
            eprintln!("{}", if json { as_json() } else { text() });
        }
    }
}

async fn run(
    command: Command,
    admin_token_in_arguments: bool,
    report: Report,
) -> anyhow::Result<Done> {
    match command {
        Command::Serve {
            bind,
            data,
            pool_size,
            pool_wait,
            workers,
            append_writers,
            admin_token,
            admin_token_file,
            max_streams,
            max_streams_per_client,
            max_connections,
            max_connections_per_client,
            max_streams_per_address,
            creations_per_minute,
            memory_budget,
            replicas,
            replica_max_lag,
            trusted_proxies,
        } => {
            serve::serve(serve::ServeCommand {
                bind,
                data_dir: data.path(),
                pool_size,
                pool_wait,
                workers,
                append_writers,
                admin_token,
                admin_token_file,
                admin_token_in_arguments,
                max_streams,
                max_streams_per_client,
                connections: crate::connections::ConnectionLimits {
                    max_open: max_connections,
                    max_per_client: max_connections_per_client,
                },
                max_streams_per_address,
                creations_per_minute,
                memory_budget,
                replicas,
                replica_max_lag,
                trusted_proxies,
            })
            .await?;
            Ok(Done::All)
        }
        Command::Migrate { data } => {
            let database = database::open(&data.path()).await?;
            umpire_storage::migrate(&database.owner_url)
                .await
                .context("migrations failed")?;
            tracing::info!("migrations applied");
            Ok(Done::All)
        }
        Command::Openapi | Command::Completions { .. } => Ok(Done::All),
        Command::Audit {
            game_id,
            file,
            stored,
        } => {
            let (source, _database) = archive_source(game_id, file, &stored).await?;
            commands::audit(source).await?;
            Ok(Done::All)
        }
        Command::WhatIf {
            game_id,
            file,
            options,
            stored,
        } => {
            let (source, _database) = archive_source(game_id, file, &stored).await?;
            commands::what_if(source, &options).await?;
            Ok(Done::All)
        }
        Command::Export {
            game_ids,
            all,
            out,
            stored,
        } => {
            let database =
                database::open_for_reading(stored.replica.as_deref(), &stored.data.path()).await?;
            commands::export(&database.service_url, &game_ids, all, out.as_deref()).await?;
            Ok(Done::All)
        }
        Command::Import { inputs, json, data } => {
            let database = database::open(&data.path()).await?;
            umpire_storage::migrate(&database.owner_url)
                .await
                .context("migrations failed")?;
            let totals = commands::import(&database.service_url, &inputs).await?;
            report.summary(
                json,
                || {
                    format!(
                        "umpire import: {} imported, {} refused",
                        totals.imported, totals.refused
                    )
                },
                || serde_json::json!(totals).to_string(),
            );
            Ok(Done::unless_failed(totals.refused))
        }
        Command::Simulate {
            game,
            count,
            seed,
            options,
            max_actions,
            out,
            json,
        } => {
            let summary = tokio::task::block_in_place(|| {
                commands::simulate(commands::SimulateCommand {
                    game: &game,
                    count,
                    seed,
                    options: &options,
                    max_actions,
                    out: out.as_deref(),
                    progress: report.summary,
                })
            })?;
            report.summary(json, || summary.line(), || summary.json());
            Ok(Done::All)
        }
        Command::Score {
            inputs,
            db,
            format,
            finished_only,
            trust_chain,
            threads,
            out,
            json,
            stored,
        } => {
            let database = if db {
                Some(
                    database::open_for_reading(stored.replica.as_deref(), &stored.data.path())
                        .await?,
                )
            } else {
                None
            };
            let summary = commands::score(commands::ScoreCommand {
                inputs,
                database: database.as_ref().map(|d| d.service_url.clone()),
                format,
                finished_only,
                chain: if trust_chain {
                    ChainCheck::Trust
                } else {
                    ChainCheck::Verify
                },
                threads,
                out,
                progress: report.summary,
            })
            .await?;
            report.summary(json, || summary.line(), || summary.json());
            Ok(Done::unless_failed(summary.totals.errors))
        }
    }
}

/// Where `audit` and `what-if` read their archive: a file, or a stored game
/// (with the database it is in, held open until the command is done).
async fn archive_source(
    game_id: Option<Uuid>,
    file: Option<PathBuf>,
    stored: &StoredGames,
) -> anyhow::Result<(commands::ArchiveSource, Option<database::Database>)> {
    match (game_id, file) {
        (_, Some(path)) => Ok((commands::ArchiveSource::File(path), None)),
        (Some(game_id), None) => {
            let database =
                database::open_for_reading(stored.replica.as_deref(), &stored.data.path()).await?;
            let source = commands::ArchiveSource::Database {
                url: database.service_url.clone(),
                game_id,
            };
            Ok((source, Some(database)))
        }
        // clap requires one of the two (an argument group).
        (None, None) => bail!("which game? Name a game id, or pass --file"),
    }
}

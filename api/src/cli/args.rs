//! The `umpire` command line as clap reads it: the commands, their options
//! and their help.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{ArgGroup, Parser, Subcommand};
use umpire_archive::OutputFormat;
use umpire_storage::GroupCommitLimits;
use uuid::Uuid;

/// What each exit status means, for every command (also in the README).
const EXIT_CODES: &str = "\
Exit status:
  0  done
  1  failed: the error is on standard error
  2  the command line was wrong (an unknown option, a missing argument, a
     value not among those listed, --options that are not JSON)
  3  done in part: some rows could not be scored (score, a broken hash chain
     among them) or some archives were refused (import); each is a row or
     line of the output
  141  standard output was closed before everything was written (`| head`),
     as for any command killed by SIGPIPE; nothing more is printed

Data goes to standard output (or --out); summaries, progress and logs to
standard error. By default only warnings are logged (and, for `serve`, what
it does): -v for more, -vv for debugging; -q for errors only, without the
summary lines and progress bars. UMPIRE_LOG (a tracing filter such as
`info` or `umpire_api=debug`) replaces both; UMPIRE_LOG_FORMAT=json.\n";

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
    /// Say more on standard error (repeat for more: -vv).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Say less on standard error: no summary line or progress bar, and
    /// only errors logged (-qq: nothing logged; a failure's one line stays).
    #[arg(short, long, global = true, action = clap::ArgAction::Count, conflicts_with = "verbose")]
    pub quiet: u8,
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
    pub data_dir: Option<PathBuf>,
}

impl DataDir {
    /// The directory given, or the one a service's state lives in by
    /// default: never the directory the command happens to run in.
    pub fn path(&self) -> PathBuf {
        self.data_dir.clone().unwrap_or_else(default_data_dir)
    }
}

/// Where a command that only reads finds stored games: a standby's URL
/// given with `--replica`, or else [`DataDir`]'s database.
#[derive(Debug, Clone, clap::Args)]
pub struct StoredGames {
    #[command(flatten)]
    pub data: DataDir,
    /// Read the stored games from this database instead (a postgres:// or
    /// key=value URL): a PostgreSQL streaming standby's URL keeps the job's
    /// reads off the primary that commits the actions. Nothing is written
    /// (a standby could not be). A standby answers as far as it has
    /// replayed: a game still being played may be a few versions behind
    /// there; a finished game is whole.
    #[arg(
        long = "replica",
        env = "UMPIRE_READ_REPLICA",
        value_name = "URL",
        hide_env_values = true
    )]
    pub replica: Option<String>,
}

/// `/var/lib/umpire` as root (the system's place for a service's state, and
/// one the `postgres` user the cluster then runs as can reach); otherwise
/// the user's data directory.
pub fn default_data_dir() -> PathBuf {
    if umpire_pgcluster::running_as_root() {
        return PathBuf::from("/var/lib/umpire");
    }
    dirs::data_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("umpire")
}

/// A size such as `512MiB`, `2GiB` or a plain number of bytes.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
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
         links, so a walk never leaves the directory. Only regular files are read: a FIFO, \
         socket or device named here is refused unless piped in as `-`. What a walk skips (links, \
         FIFOs, sockets, devices, entries it cannot open) is counted in one warning (-v lists \
         each). \
         One archive (a line, or a .json file) may be at most {} MiB, as over HTTP; a longer one \
         stops the command with an error naming the file and line.",
        umpire_archive::MAX_ARCHIVE_BYTES / (1024 * 1024)
    )
}

/// `simulate --game`: a registered game's name, or `all`. Listed in
/// `--help` and offered by the shell completions.
fn simulated_games() -> PossibleValuesParser {
    let mut names: Vec<PossibleValue> = umpire_games::registry()
        .ids()
        .map(PossibleValue::new)
        .collect();
    names.push(PossibleValue::new("all").help("each registered game in turn"));
    PossibleValuesParser::new(names)
}

/// `score --format`: the rows' formats, listed in `--help` and offered by
/// the shell completions.
fn output_formats() -> impl TypedValueParser<Value = OutputFormat> {
    PossibleValuesParser::new([
        PossibleValue::new("csv").help("a header, then one row per game"),
        PossibleValue::new("jsonl")
            .aliases(["json", "ndjson"])
            .help("one JSON object per game (JSON Lines)"),
    ])
    // Only the names above get here, and each is a format.
    .map(|name| name.parse().unwrap_or_default())
}

/// A JSON value given as an option (`--options`): text that is not JSON is
/// a usage error, reported by clap like any other (status 2).
fn json_value(text: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(text).map_err(|error| format!("not JSON: {error}"))
}

/// `--replica-max-lag`: a number of seconds, 0 or more.
fn seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => Ok(seconds),
        _ => Err("a number of seconds, 0 or more (e.g. 30 or 2.5)".to_string()),
    }
}

/// `--pool-wait`: a number of seconds, more than 0 (a pool that never
/// waits would refuse every request while its connections open).
fn positive_seconds(text: &str) -> Result<f64, String> {
    match seconds(text) {
        Ok(seconds)
            if std::time::Duration::try_from_secs_f64(seconds)
                .is_ok_and(|wait| !wait.is_zero()) =>
        {
            Ok(seconds)
        }
        _ => Err("a number of seconds, more than 0 (e.g. 3 or 0.5)".to_string()),
    }
}

/// A count of connections, threads or writers: 1 or more.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(count) if count >= 1 => Ok(count),
        _ => Err("a whole number, 1 or more".to_string()),
    }
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
        #[arg(long, default_value_t = 16, env = "UMPIRE_POOL_SIZE", value_parser = at_least_one)]
        pool_size: usize,
        /// Seconds a request waits for a database connection (a free one,
        /// or a new one opened) before it is answered 503 with Retry-After.
        #[arg(long, default_value_t = umpire_storage::POOL_WAIT.as_secs_f64(), env = "UMPIRE_POOL_WAIT", value_name = "SECONDS", value_parser = positive_seconds)]
        pool_wait: f64,
        /// HTTP worker threads (default: one per core).
        #[arg(long, env = "UMPIRE_WORKERS", value_parser = at_least_one)]
        workers: Option<usize>,
        /// Statements appending events at once; appends arriving while all
        /// are busy share the next statement (group commit).
        #[arg(long, default_value_t = GroupCommitLimits::default().writers, env = "UMPIRE_APPEND_WRITERS", value_parser = at_least_one)]
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
        /// HTTP connections this instance holds open at once; beyond, a new
        /// one is answered 503 `busy` with Retry-After and closed unread.
        #[arg(long, default_value_t = crate::connections::DEFAULT_MAX_CONNECTIONS, env = "UMPIRE_MAX_CONNECTIONS")]
        max_connections: usize,
        /// HTTP connections one client (an address; an IPv6 /64) holds open
        /// at once; beyond, 503 `busy`. Trusted proxies are not limited.
        #[arg(long, default_value_t = crate::connections::DEFAULT_MAX_CONNECTIONS_PER_CLIENT, env = "UMPIRE_MAX_CONNECTIONS_PER_CLIENT")]
        max_connections_per_client: usize,
        /// Live streams one client address holds open at once, whatever
        /// the tokens they carry (anyone may mint tokens on an open
        /// service); an IPv6 client is its /64. Beyond, 429
        /// `too_many_streams`.
        #[arg(long, default_value_t = umpire_service::live::DEFAULT_MAX_STREAMS_PER_ADDRESS, env = "UMPIRE_MAX_STREAMS_PER_ADDRESS")]
        max_streams_per_address: usize,
        /// Without an admin token: games one client address may create or
        /// import a minute (all at once, then one every 60/N s); beyond,
        /// 429 `too_many_games` with Retry-After. An IPv6 client is its /64.
        #[arg(long, default_value_t = umpire_service::throttle::DEFAULT_CREATIONS_PER_MINUTE, env = "UMPIRE_CREATIONS_PER_MINUTE", value_parser = clap::value_parser!(u32).range(1..))]
        creations_per_minute: u32,
        /// Memory the process may use (e.g. 512MiB, 2GiB): what it holds at
        /// start, plus the fold cache, live streams, archive bodies and
        /// audits, each charged in bytes. Caches give way first; a request
        /// that still does not fit is answered 503 `busy` with Retry-After.
        #[arg(long, default_value = "512MiB", env = "UMPIRE_MEMORY_BUDGET", value_parser = parse_bytes)]
        memory_budget: u64,
        /// A PostgreSQL streaming standby of the database (a postgres:// or
        /// key=value URL, logging in as a role that may read), repeatable;
        /// in UMPIRE_REPLICAS, comma-separated. Reads that name a version
        /// (`?at=N`, `min_version=N`, events pages, streams catching up)
        /// are answered from a standby that holds that version, else from
        /// the primary: never stale. A standby that is down or lags past
        /// --replica-max-lag is skipped until it is well again.
        #[arg(
            long = "replica",
            env = "UMPIRE_REPLICAS",
            value_delimiter = ',',
            hide_env_values = true,
            value_name = "URL"
        )]
        replicas: Vec<String>,
        /// Skip a standby whose replay lags its primary by more than this
        /// many seconds (its lag in /metrics: umpire_standby_lag_seconds).
        #[arg(long, default_value_t = umpire_service::replicas::DEFAULT_MAX_LAG.as_secs_f64(), env = "UMPIRE_REPLICA_MAX_LAG", value_name = "SECONDS", value_parser = seconds)]
        replica_max_lag: f64,
        /// The address of a proxy in front of the service (nginx), whose
        /// X-Forwarded-For then says which client a request is from:
        /// spectators' streams are limited per client address, and behind
        /// an untrusted proxy every spectator would share its address.
        /// Repeatable; in UMPIRE_TRUSTED_PROXIES, comma-separated. Only
        /// the entry the proxy itself added is believed.
        #[arg(
            long = "trusted-proxy",
            env = "UMPIRE_TRUSTED_PROXIES",
            value_delimiter = ',',
            value_name = "IP"
        )]
        trusted_proxies: Vec<std::net::IpAddr>,
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
        umpire audit --file games.jsonl   # one report per line (JSON Lines)",
        group = ArgGroup::new("archive").required(true).args(["game_id", "file"])
    )]
    Audit {
        /// The id of a stored game (or give --file).
        game_id: Option<Uuid>,
        /// An archive file instead of a stored game: one archive (JSON), or
        /// JSON Lines of archives, each audited in turn.
        #[arg(long, conflicts_with = "game_id", value_name = "FILE")]
        file: Option<PathBuf>,
        #[command(flatten)]
        stored: StoredGames,
    },
    /// Re-run a game's actions under other options and report where its
    /// outcome changes (JSON).
    #[command(
        after_help = "Example:\n  umpire what-if --file game.json --options '{\"dm_advantage\": \"blue\"}'",
        group = ArgGroup::new("archive").required(true).args(["game_id", "file"])
    )]
    WhatIf {
        /// The id of a stored game (or give --file).
        game_id: Option<Uuid>,
        /// An archive file (one archive) instead of a stored game.
        #[arg(long, conflicts_with = "game_id", value_name = "FILE")]
        file: Option<PathBuf>,
        /// A JSON merge patch over the game's options.
        #[arg(long, value_name = "JSON", value_parser = json_value)]
        options: serde_json::Value,
        #[command(flatten)]
        stored: StoredGames,
    },
    /// Export stored games as archives, one JSON line per game.
    #[command(
        after_help = "Examples:\n  umpire export 6f1c2a54-8d0e-4a43-9b0a-3c1f5e2d7a90 > game.jsonl\n  \
        umpire export --all --out season.jsonl\n  \
        umpire export --all --replica postgres://umpire_app@standby/umpire > season.jsonl",
        group = ArgGroup::new("games").required(true).multiple(true).args(["game_ids", "all"])
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
        stored: StoredGames,
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
        /// Print the closing summary on standard error as one JSON object
        /// (`{"imported": N, "refused": N}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        data: DataDir,
    },
    /// Write random legal games as archives (JSON Lines).
    #[command(
        after_help = "Example:\n  umpire simulate --game all --count 1000 --seed 7 --out games.jsonl"
    )]
    Simulate {
        /// The game to play, or `all` for each in turn.
        #[arg(long, value_parser = simulated_games())]
        game: String,
        /// How many games of each game named: with `--game all`, this many
        /// of every registered game.
        #[arg(long, default_value_t = 1)]
        count: u64,
        /// The run's seed: the same seed writes the same games.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The games' options as JSON (`null`: each game's defaults).
        #[arg(long, default_value = "null", value_name = "JSON", value_parser = json_value)]
        options: serde_json::Value,
        /// Stop a game that has not ended after this many actions.
        #[arg(long, default_value_t = umpire_archive::simulate::DEFAULT_MAX_ACTIONS)]
        max_actions: usize,
        /// Write here instead of standard output.
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Print the closing summary on standard error as one JSON object
        /// (`{"games": N, "events": N, "bytes": N, "seconds": S, "threads": N}`).
        #[arg(long)]
        json: bool,
    },
    /// Score archives in bulk (files, directories, `-`) or every stored game
    /// (--db): one row per game, in parallel, streamed.
    #[command(after_help = "Examples:\n  umpire score season.jsonl > scores.csv\n  \
        umpire score --db --format jsonl --out scores.jsonl\n  \
        umpire score --db --replica postgres://umpire_app@standby/umpire   # off the primary\n\n\
        A game that cannot be scored is a row with its error; the status is then 3. \
        An input whose first three lines are not even JSON objects (a README) is not \
        archives: it stops the command with one error (status 1).",
        group = ArgGroup::new("games").required(true).args(["inputs", "db"]))]
    Score {
        /// Files (one archive, or JSON Lines), directories of them, or `-`.
        #[arg(value_name = "INPUT", long_help = inputs_long_help())]
        inputs: Vec<String>,
        /// Score every game in the database instead of files.
        #[arg(long)]
        db: bool,
        /// The rows' format.
        #[arg(long, default_value = "csv", value_parser = output_formats())]
        format: OutputFormat,
        /// Leave out games that are not finished (error rows stay).
        #[arg(long)]
        finished_only: bool,
        /// Score each archive without checking its hash chain first. By
        /// default every file's archive is checked as `audit` and `import`
        /// check it, and one changed after it was recorded (a payload value
        /// edited) is an error row: trust the chain only for archives this
        /// installation wrote itself. Stored games (--db) are the store's
        /// own append-only log and are not checked.
        #[arg(long)]
        trust_chain: bool,
        /// Scoring threads (default: one per core).
        #[arg(long, value_parser = at_least_one)]
        threads: Option<usize>,
        /// Write here instead of standard output.
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Print the closing summary on standard error as one JSON object
        /// (`{"games": N, "errors": N, "bytes": N, "seconds": S}`).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        stored: StoredGames,
    },
    /// Print a completion script for a shell on standard output.
    #[command(
        after_help = "Examples:\n  umpire completions bash > ~/.local/share/bash-completion/completions/umpire\n  \
        umpire completions zsh > ~/.zfunc/_umpire\n  \
        umpire completions fish > ~/.config/fish/completions/umpire.fish"
    )]
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
}

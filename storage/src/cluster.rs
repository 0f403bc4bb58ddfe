//! A private PostgreSQL cluster under a data directory, started from the
//! PostgreSQL binaries on the machine, for `umpire serve` without a database
//! URL and for the tests.
//!
//! The cluster listens on a unix socket inside the data directory only
//! (`listen_addresses = ''`), so it never fights another server for a TCP
//! port. initdb and postgres refuse to run as root; when we are root they run
//! as the `postgres` system user through `runuser`.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How much the cluster may trade durability for speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// The service: fsync on, every commit durable.
    Full,
    /// Throw-away test clusters: no fsync, no synchronous commit.
    Throwaway,
}

#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error(
        "PostgreSQL server binaries (initdb, pg_ctl) were not found on PATH or in \
         /usr/lib/postgresql/*/bin: install PostgreSQL 15 (apt-get install postgresql-15) \
         or set DATABASE_URL to an existing server"
    )]
    BinariesNotFound,
    #[error("running as root, but there is no `postgres` system user to run PostgreSQL as: create one (useradd postgres) or set DATABASE_URL")]
    NoPostgresUser,
    #[error("the socket path {0} is too long for a unix socket: choose a shorter --data-dir")]
    SocketPathTooLong(PathBuf),
    #[error("{command} failed: {output}")]
    CommandFailed { command: String, output: String },
    #[error("io error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A running private cluster. Dropping it does not stop it: call [`stop`].
///
/// [`stop`]: PrivateCluster::stop
#[derive(Debug)]
pub struct PrivateCluster {
    bin_dir: PathBuf,
    pgdata: PathBuf,
    socket_dir: PathBuf,
    run_as_postgres: bool,
    /// True when this process started the server (and so should stop it).
    pub started_here: bool,
}

/// The superuser the cluster is initialised with.
pub const CLUSTER_USER: &str = "umpire";
const PORT: u16 = 5432;

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ClusterError + '_ {
    move |source| ClusterError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The directory holding `pg_ctl`, `initdb` and `postgres`.
pub fn find_binaries() -> Result<PathBuf, ClusterError> {
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if dir.join("pg_ctl").is_file() && dir.join("initdb").is_file() {
                return Ok(dir);
            }
        }
    }
    let mut candidates: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            bin.join("pg_ctl").is_file().then_some((version, bin))
        })
        .collect();
    candidates.sort();
    candidates
        .pop()
        .map(|(_, bin)| bin)
        .ok_or(ClusterError::BinariesNotFound)
}

fn running_as_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|meta| meta.uid() == 0)
        .unwrap_or(false)
}

fn postgres_ids() -> Result<(u32, u32), ClusterError> {
    let output = Command::new("id")
        .args(["-u", "postgres"])
        .output()
        .map_err(|_| ClusterError::NoPostgresUser)?;
    let uid = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .map_err(|_| ClusterError::NoPostgresUser)?;
    let output = Command::new("id")
        .args(["-g", "postgres"])
        .output()
        .map_err(|_| ClusterError::NoPostgresUser)?;
    let gid = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .map_err(|_| ClusterError::NoPostgresUser)?;
    Ok((uid, gid))
}

impl PrivateCluster {
    /// Initialises the cluster under `data_dir` if needed, and starts it
    /// unless it is already running there (then it is reused).
    pub fn start(data_dir: &Path, durability: Durability) -> Result<Self, ClusterError> {
        let bin_dir = find_binaries()?;
        std::fs::create_dir_all(data_dir).map_err(io_error(data_dir))?;
        let data_dir = data_dir.canonicalize().map_err(io_error(data_dir))?;
        let pgdata = data_dir.join("pgdata");
        let socket_dir = data_dir.join("socket");
        std::fs::create_dir_all(&socket_dir).map_err(io_error(&socket_dir))?;
        let socket_file = socket_dir.join(format!(".s.PGSQL.{PORT}"));
        if socket_file.as_os_str().len() >= 100 {
            return Err(ClusterError::SocketPathTooLong(socket_file));
        }
        let run_as_postgres = running_as_root();
        if run_as_postgres {
            let (uid, gid) = postgres_ids()?;
            for dir in [&data_dir, &socket_dir] {
                std::os::unix::fs::chown(dir, Some(uid), Some(gid)).map_err(io_error(dir))?;
            }
        }
        let mut cluster = PrivateCluster {
            bin_dir,
            pgdata,
            socket_dir,
            run_as_postgres,
            started_here: false,
        };
        if !cluster.pgdata.join("PG_VERSION").is_file() {
            let mut args = vec![
                "-D".to_string(),
                cluster.pgdata.display().to_string(),
                "-U".into(),
                CLUSTER_USER.into(),
                "--auth=trust".into(),
                "--encoding=UTF8".into(),
                "--locale=C".into(),
                "--no-instructions".into(),
            ];
            if durability == Durability::Throwaway {
                args.push("--no-sync".into());
            }
            cluster.run("initdb", &args)?;
        }
        if !cluster.is_running() {
            let mut server_options = format!(
                "-c listen_addresses='' -k {} -p {PORT} -c max_connections=200",
                cluster.socket_dir.display()
            );
            if durability == Durability::Throwaway {
                server_options
                    .push_str(" -c fsync=off -c synchronous_commit=off -c full_page_writes=off");
            }
            let log = data_dir.join("postgres.log");
            cluster.run(
                "pg_ctl",
                &[
                    "start".into(),
                    "-w".into(),
                    "-t".into(),
                    "60".into(),
                    "-D".into(),
                    cluster.pgdata.display().to_string(),
                    "-l".into(),
                    log.display().to_string(),
                    "-o".into(),
                    server_options,
                ],
            )?;
            cluster.started_here = true;
        }
        Ok(cluster)
    }

    fn is_running(&self) -> bool {
        self.command(
            "pg_ctl",
            &[
                "status".into(),
                "-D".into(),
                self.pgdata.display().to_string(),
            ],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|status| status.success())
        .unwrap_or(false)
    }

    fn command(&self, program: &str, args: &[String]) -> Command {
        let binary = self.bin_dir.join(program);
        let mut command = if self.run_as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(binary);
            command
        } else {
            Command::new(binary)
        };
        command.args(args).stdin(Stdio::null());
        command
    }

    fn run(&self, program: &str, args: &[String]) -> Result<(), ClusterError> {
        let output = self
            .command(program, args)
            .output()
            .map_err(io_error(&self.bin_dir.join(program)))?;
        if output.status.success() {
            Ok(())
        } else {
            Err(ClusterError::CommandFailed {
                command: format!("{program} {}", args.join(" ")),
                output: format!(
                    "{}{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                ),
            })
        }
    }

    /// A libpq key/value connection string for a database of this cluster.
    pub fn url(&self, database: &str) -> String {
        format!(
            "host={} port={PORT} user={CLUSTER_USER} dbname={database}",
            self.socket_dir.display()
        )
    }

    pub fn socket_dir(&self) -> &Path {
        &self.socket_dir
    }

    /// Stops the server (fast shutdown: open transactions roll back, nothing
    /// half-written survives).
    pub fn stop(&self) -> Result<(), ClusterError> {
        self.run(
            "pg_ctl",
            &[
                "stop".into(),
                "-w".into(),
                "-m".into(),
                "fast".into(),
                "-D".into(),
                self.pgdata.display().to_string(),
            ],
        )
    }

    /// Starts a detached watcher that stops this cluster and removes
    /// `remove_dir` once process `pid` has exited. Tests use it so that a
    /// test binary's cluster never outlives the run, however it ends.
    pub fn stop_when_process_exits(&self, pid: u32, remove_dir: &Path) {
        let pg_ctl = self.bin_dir.join("pg_ctl");
        let prefix = if self.run_as_postgres {
            "runuser -u postgres -- "
        } else {
            ""
        };
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; \
             {prefix}'{}' stop -m immediate -D '{}' >/dev/null 2>&1; rm -rf '{}'",
            pg_ctl.display(),
            self.pgdata.display(),
            remove_dir.display()
        );
        let _ = Command::new("sh")
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
    }
}

/// Creates `database` unless it exists, connecting to the `postgres` database
/// through `admin_url` (a URL whose `dbname` is replaced).
pub async fn ensure_database(
    admin_url: &str,
    database: &str,
    template: Option<&str>,
) -> Result<(), crate::StoreError> {
    let mut config: tokio_postgres::Config = admin_url
        .parse()
        .map_err(|e: tokio_postgres::Error| crate::StoreError::Unavailable(e.to_string()))?;
    config.dbname("postgres");
    let (client, connection) = config.connect(tokio_postgres::NoTls).await?;
    let connection = tokio::spawn(connection);
    let exists = client
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&database])
        .await?
        .is_some();
    if !exists {
        let quoted = database.replace('"', "\"\"");
        let statement = match template {
            Some(template) => format!(
                "CREATE DATABASE \"{quoted}\" TEMPLATE \"{}\"",
                template.replace('"', "\"\"")
            ),
            None => format!("CREATE DATABASE \"{quoted}\""),
        };
        client.batch_execute(&statement).await?;
    }
    drop(client);
    let _ = connection.await;
    Ok(())
}

/// The same connection string pointing at another database.
pub fn with_database(url: &str, database: &str) -> Result<String, crate::StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        // Replace the path part of a URL.
        let (base, query) = match url.split_once('?') {
            Some((base, query)) => (base, Some(query)),
            None => (url, None),
        };
        let scheme_end = base.find("://").map(|i| i + 3).unwrap_or(0);
        let authority_end = base[scheme_end..]
            .find('/')
            .map(|i| scheme_end + i)
            .unwrap_or(base.len());
        let mut out = format!("{}/{}", &base[..authority_end], database);
        if let Some(query) = query {
            out.push('?');
            out.push_str(query);
        }
        Ok(out)
    } else {
        let kept: Vec<&str> = url
            .split_whitespace()
            .filter(|part| !part.starts_with("dbname="))
            .collect();
        Ok(format!("{} dbname={database}", kept.join(" ")))
    }
}

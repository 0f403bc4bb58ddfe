//! A private PostgreSQL cluster under a data directory, started from the
//! PostgreSQL binaries on the machine, for `umpire serve` without a database
//! URL and for the tests: starting it (or taking over one found running),
//! securing it, a streaming standby of it, stopping it. The only SQL here
//! is what secures it (the roles and their passwords); the schema and
//! everything the service stores are umpire-storage's, which reaches the
//! cluster through [`PrivateCluster::owner_url`] and
//! [`PrivateCluster::service_url`].
//!
//! ```no_run
//! use umpire_pgcluster::{Durability, PrivateCluster};
//!
//! let cluster = PrivateCluster::start("/var/lib/umpire".as_ref(), Durability::Full)?;
//! let pool_url = cluster.service_url("umpire");
//! # drop(pool_url);
//! if cluster.started_here() {
//!     cluster.stop()?;
//! }
//! # Ok::<(), umpire_pgcluster::ClusterError>(())
//! ```
//!
//! The cluster listens on a unix socket inside the data directory only
//! (`listen_addresses = ''`), so it never fights another server for a TCP
//! port. initdb and postgres refuse to run as root; when we are root they run
//! as the `postgres` system user through `runuser`.
//!
//! The cluster belongs to the service alone. The data and socket
//! directories are mode 0700, owned by the user PostgreSQL runs as, so no
//! other local account can reach the socket; and `pg_hba.conf` asks every
//! connection for a password (scram-sha-256). There are two roles, each with
//! a random password kept in the password file
//! ([`PrivateCluster::password_file`], pgpass format, mode 0600):
//! the owner [`OWNER_ROLE`], the cluster's superuser, which only creates
//! databases and runs migrations; and [`SERVICE_ROLE`], which the service's
//! pool logs in as and which may only read and insert (migrations/V1).
//!
//! A data directory made by an older version (trust for every local
//! connection) is secured in place at start: the passwords are set while
//! trust still lets us in, then the new `pg_hba.conf` is loaded.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod standby;

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
    #[error(
        "the cluster asks for passwords but the password file {0} is missing or unreadable: \
         restore it from a backup of the data directory (see README: the private cluster \
         belongs to the service alone)"
    )]
    PasswordsLost(PathBuf),
    #[error(
        "the data directory {0} is a symbolic link: refusing to create or hand it to the \
         PostgreSQL user through a link (someone able to change the link could point it \
         anywhere); pass the directory it points to, or a real directory, with --data-dir"
    )]
    SymlinkedDataDir(PathBuf),
    #[error("{0} changed while it was being secured (replaced by a link or another directory): try again, and check who can write to its parent")]
    DirectoryChanged(PathBuf),
    #[error("no randomness for the cluster's passwords: {0}")]
    NoRandomness(String),
    #[error("PostgreSQL still accepted a connection without a password {0:?} after the new pg_hba.conf was loaded")]
    StillTrusting(Duration),
}

/// A password that never shows in `Debug` output or logs.
#[derive(Clone, PartialEq, Eq)]
struct Secret(String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Passwords {
    owner: Secret,
    service: Secret,
}

/// A running private cluster. Dropping it does not stop it: call [`stop`].
///
/// [`stop`]: PrivateCluster::stop
#[derive(Debug)]
pub struct PrivateCluster {
    bin_dir: PathBuf,
    data_dir: PathBuf,
    pgdata: PathBuf,
    socket_dir: PathBuf,
    /// The `postgres` user's uid and gid when we are root (PostgreSQL then
    /// runs as it); `None` when PostgreSQL runs as ourselves.
    postgres_user: Option<(u32, u32)>,
    passwords: Passwords,
    /// True when this process started the server (and so should stop it).
    started_here: bool,
}

/// Under the data directory: the id of the process that started the
/// running server and will stop it. A server whose owner is gone is taken
/// over by the next command that finds it.
const OWNER_FILE: &str = "owner.pid";

/// The cluster's superuser: creates databases and runs migrations, nothing else.
pub const OWNER_ROLE: &str = "umpire";
/// The role the service's connections log in as: not a superuser, and
/// granted only SELECT and INSERT (migrations/V1).
pub const SERVICE_ROLE: &str = "umpire_app";
/// The roles' passwords, under the data directory, in libpq's pgpass format
/// so that `PGPASSFILE=DATA_DIR/pgpass psql -h DATA_DIR/socket -U umpire`
/// works for an operator. Mode 0600, owned by whoever runs the service.
const PASSWORD_FILE: &str = "pgpass";
const PORT: u16 = 5432;

/// Every local connection must prove its role's password; there are no TCP
/// connections (`listen_addresses = ''`), so there are no `host` lines.
const SECURE_HBA: &str = "\
# Written by umpire: the cluster belongs to the service alone. Every
# connection needs its role's password (DATA_DIR/pgpass); see README.
local all all scram-sha-256
";

/// [`SECURE_HBA`] and one more line: the owner may also stream the WAL to a
/// standby ([`PrivateCluster::start_standby`]), by the same password.
const SECURE_HBA_REPLICATING: &str = "\
# Written by umpire: the cluster belongs to the service alone. Every
# connection needs its role's password (DATA_DIR/pgpass); see README.
local all all scram-sha-256
local replication umpire scram-sha-256
";

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ClusterError + '_ {
    move |source| ClusterError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The directory holding `pg_ctl`, `initdb` and `postgres`.
fn find_binaries() -> Result<PathBuf, ClusterError> {
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

/// `program` in `bin_dir`, or else beside the file `bin_dir`'s `pg_ctl`
/// links to (a PATH directory may hold links to only some of the server's
/// binaries: `pg_basebackup` may be missing where `pg_ctl` is).
fn beside_pg_ctl(bin_dir: &Path, program: &str) -> PathBuf {
    let here = bin_dir.join(program);
    if here.is_file() {
        return here;
    }
    bin_dir
        .join("pg_ctl")
        .canonicalize()
        .ok()
        .and_then(|pg_ctl| Some(pg_ctl.parent()?.join(program)))
        .filter(|beside| beside.is_file())
        .unwrap_or(here)
}

/// `psql`: beside `pg_ctl`, beside the file `pg_ctl` links to (a PATH
/// directory may hold only links to the server binaries), or on PATH.
pub fn find_psql() -> Result<PathBuf, ClusterError> {
    let bin_dir = find_binaries()?;
    let beside_target = bin_dir
        .join("pg_ctl")
        .canonicalize()
        .ok()
        .and_then(|pg_ctl| Some(pg_ctl.parent()?.join("psql")));
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .map(|dir| dir.join("psql"));
    std::iter::once(bin_dir.join("psql"))
        .chain(beside_target)
        .chain(on_path)
        .find(|candidate| candidate.is_file())
        .ok_or(ClusterError::BinariesNotFound)
}

/// True when this process runs as root (PostgreSQL then runs as `postgres`).
pub fn running_as_root() -> bool {
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

/// Refuses a data directory whose last component is a symbolic link: as
/// root, the directory is created and handed to `postgres`, and a link in a
/// directory others can write would let them choose what is handed over.
/// (`dir/` with a trailing slash names the link's target, so the path is
/// normalised first.)
fn refuse_symlink(data_dir: &Path) -> Result<(), ClusterError> {
    let normalised: PathBuf = data_dir.components().collect();
    match std::fs::symlink_metadata(&normalised) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            Err(ClusterError::SymlinkedDataDir(data_dir.to_path_buf()))
        }
        _ => Ok(()),
    }
}

fn random_password() -> Result<Secret, ClusterError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| ClusterError::NoRandomness(e.to_string()))?;
    Ok(Secret(hex::encode(bytes)))
}

/// Reads the owner's and the service's passwords from a pgpass file written
/// by [`write_password_file`]; `None` when it is missing or incomplete.
fn read_password_file(path: &Path) -> Option<Passwords> {
    let text = std::fs::read_to_string(path).ok()?;
    let password_of = |role: &str| {
        text.lines().find_map(|line| {
            let mut fields = line.splitn(5, ':');
            let role_field = fields.nth(3)?;
            let password = fields.next()?;
            (role_field == role && !password.is_empty()).then(|| Secret(password.to_string()))
        })
    };
    Some(Passwords {
        owner: password_of(OWNER_ROLE)?,
        service: password_of(SERVICE_ROLE)?,
    })
}

/// Writes the passwords with mode 0600 from the first byte on (never
/// readable by others, not even briefly), then moves the file into place.
fn write_password_file(path: &Path, passwords: &Passwords) -> Result<(), ClusterError> {
    let partial = path.with_extension("partial");
    let _ = std::fs::remove_file(&partial);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&partial)
        .map_err(io_error(&partial))?;
    write!(
        file,
        "# The private cluster's roles (pgpass format, for libpq: PGPASSFILE).\n\
         *:*:*:{OWNER_ROLE}:{}\n*:*:*:{SERVICE_ROLE}:{}\n",
        passwords.owner.0, passwords.service.0
    )
    .and_then(|_| file.sync_all())
    .map_err(io_error(&partial))?;
    std::fs::rename(&partial, path).map_err(io_error(path))
}

impl PrivateCluster {
    /// True when `data_dir` holds a cluster (made by an earlier start).
    pub fn exists(data_dir: &Path) -> bool {
        data_dir.join("pgdata").join("PG_VERSION").is_file()
    }

    /// Initialises the cluster under `data_dir` if needed, starts it unless
    /// it is already running there (then it is reused), and makes sure it
    /// asks for passwords, upgrading a trusting cluster in place.
    pub fn start(data_dir: &Path, durability: Durability) -> Result<Self, ClusterError> {
        let mut cluster = Self::prepare(data_dir)?;
        cluster.init_and_run(durability)?;
        cluster.passwords = cluster.require_passwords()?;
        Ok(cluster)
    }

    /// Creates the directories, closed to everyone but the user PostgreSQL
    /// runs as, before any server can listen in them.
    fn prepare(data_dir: &Path) -> Result<Self, ClusterError> {
        let bin_dir = find_binaries()?;
        refuse_symlink(data_dir)?;
        std::fs::create_dir_all(data_dir).map_err(io_error(data_dir))?;
        refuse_symlink(data_dir)?;
        let data_dir = data_dir.canonicalize().map_err(io_error(data_dir))?;
        let pgdata = data_dir.join("pgdata");
        let socket_dir = data_dir.join("socket");
        std::fs::create_dir_all(&socket_dir).map_err(io_error(&socket_dir))?;
        let socket_file = socket_dir.join(format!(".s.PGSQL.{PORT}"));
        if socket_file.as_os_str().len() >= 100 {
            return Err(ClusterError::SocketPathTooLong(socket_file));
        }
        let postgres_user = if running_as_root() {
            Some(postgres_ids()?)
        } else {
            None
        };
        let cluster = PrivateCluster {
            bin_dir,
            data_dir,
            pgdata,
            socket_dir,
            postgres_user,
            passwords: Passwords {
                owner: Secret(String::new()),
                service: Secret(String::new()),
            },
            started_here: false,
        };
        for dir in [&cluster.data_dir, &cluster.socket_dir] {
            cluster.give_directory_to_postgres(dir, 0o700)?;
        }
        Ok(cluster)
    }

    /// Makes the directory `path` belong to the user PostgreSQL runs as,
    /// with `mode`, through a descriptor of the directory itself: if `path`
    /// is (or becomes) a symbolic link, nothing is changed, not even what
    /// it points to.
    fn give_directory_to_postgres(&self, path: &Path, mode: u32) -> Result<(), ClusterError> {
        let directory = std::fs::File::open(path).map_err(io_error(path))?;
        let opened = directory.metadata().map_err(io_error(path))?;
        let named = std::fs::symlink_metadata(path).map_err(io_error(path))?;
        if named.file_type().is_symlink() {
            return Err(ClusterError::SymlinkedDataDir(path.to_path_buf()));
        }
        // The path and the descriptor are one directory: it was not swapped
        // for a link between the open and the check.
        if !opened.is_dir() || (opened.dev(), opened.ino()) != (named.dev(), named.ino()) {
            return Err(ClusterError::DirectoryChanged(path.to_path_buf()));
        }
        if let Some((uid, gid)) = self.postgres_user {
            std::os::unix::fs::fchown(&directory, Some(uid), Some(gid)).map_err(io_error(path))?;
        }
        directory
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(io_error(path))
    }

    /// Makes `path` belong to the user PostgreSQL runs as, with `mode`.
    fn give_to_postgres(&self, path: &Path, mode: u32) -> Result<(), ClusterError> {
        if let Some((uid, gid)) = self.postgres_user {
            std::os::unix::fs::chown(path, Some(uid), Some(gid)).map_err(io_error(path))?;
        }
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
            .map_err(io_error(path))
    }

    /// initdb (with trust: nobody else can reach the socket directory, and
    /// [`require_passwords`] ends trust before anyone is told the cluster is
    /// up) and start the server if it is not running.
    ///
    /// [`require_passwords`]: PrivateCluster::require_passwords
    fn init_and_run(&mut self, durability: Durability) -> Result<(), ClusterError> {
        if !self.pgdata.join("PG_VERSION").is_file() {
            let mut args = vec![
                "-D".to_string(),
                self.pgdata.display().to_string(),
                "-U".into(),
                OWNER_ROLE.into(),
                "--auth=trust".into(),
                "--encoding=UTF8".into(),
                "--locale=C".into(),
                "--no-instructions".into(),
            ];
            if durability == Durability::Throwaway {
                args.push("--no-sync".into());
            }
            self.run("initdb", &args)?;
        }
        if self.is_running() {
            // Left running by a command that is gone (killed with SIGKILL,
            // or its machine's power cut): nobody would ever stop it, so
            // this process takes it over as if it had started it.
            if !self.owner_is_alive() {
                tracing::warn!(
                    "the private cluster under {} was left running by a process that has ended: \
                     taking it over (it is stopped when this command ends)",
                    self.data_dir.display()
                );
                self.started_here = true;
                self.write_owner()?;
            }
        } else {
            // pg_ctl hands these options to the server through a shell:
            // the socket directory is quoted as one word.
            let mut server_options = format!(
                "-c listen_addresses='' -k {} -p {PORT} -c max_connections=200",
                shell_word(&self.socket_dir.to_string_lossy())
            );
            if durability == Durability::Throwaway {
                server_options
                    .push_str(" -c fsync=off -c synchronous_commit=off -c full_page_writes=off");
            }
            let log = self.data_dir.join("postgres.log");
            self.run(
                "pg_ctl",
                &[
                    "start".into(),
                    "-w".into(),
                    "-t".into(),
                    "60".into(),
                    "-D".into(),
                    self.pgdata.display().to_string(),
                    "-l".into(),
                    log.display().to_string(),
                    "-o".into(),
                    server_options,
                ],
            )?;
            self.started_here = true;
            self.write_owner()?;
        }
        Ok(())
    }

    /// Where the process that started the running server (and will stop
    /// it) writes its id.
    fn owner_file(&self) -> PathBuf {
        self.data_dir.join(OWNER_FILE)
    }

    fn write_owner(&self) -> Result<(), ClusterError> {
        let path = self.owner_file();
        std::fs::write(&path, format!("{}\n", std::process::id())).map_err(io_error(&path))
    }

    /// Whether the process named in the owner file still runs. A cluster
    /// with no owner file was started by hand or by a version before it:
    /// left as it is, as before.
    fn owner_is_alive(&self) -> bool {
        let Ok(text) = std::fs::read_to_string(self.owner_file()) else {
            return true;
        };
        match text.trim().parse::<u32>() {
            Ok(pid) => Path::new(&format!("/proc/{pid}")).exists(),
            Err(_) => false,
        }
    }

    /// Ends trust: unless `pg_hba.conf` is already ours, sets both roles'
    /// passwords while trust still lets the owner in, then loads the new
    /// `pg_hba.conf` and waits until the server asks for passwords. Returns
    /// the passwords.
    fn require_passwords(&self) -> Result<Passwords, ClusterError> {
        let password_file = self.password_file();
        let hba = self.pgdata.join("pg_hba.conf");
        let secured = std::fs::read_to_string(&hba)
            .is_ok_and(|text| text == SECURE_HBA || text == SECURE_HBA_REPLICATING);
        let known = read_password_file(&password_file);
        if secured {
            return known.ok_or(ClusterError::PasswordsLost(password_file));
        }
        // Written before the roles change, so a crash in between leaves a
        // file whose passwords the next start sets again (trust still holds).
        let passwords = match known {
            Some(passwords) => passwords,
            None => {
                let passwords = Passwords {
                    owner: random_password()?,
                    service: random_password()?,
                };
                write_password_file(&password_file, &passwords)?;
                passwords
            }
        };
        self.set_role_passwords(&passwords)?;
        self.install_hba(SECURE_HBA)?;
        self.wait_until_trust_is_gone()?;
        Ok(passwords)
    }

    /// Replaces `pg_hba.conf` with `text` (whole, by a rename) and asks the
    /// server to load it; a reload only signals, so the caller waits for
    /// what it needs to see.
    fn install_hba(&self, text: &str) -> Result<(), ClusterError> {
        let hba = self.pgdata.join("pg_hba.conf");
        let partial = hba.with_extension("conf.partial");
        std::fs::write(&partial, text).map_err(io_error(&partial))?;
        self.give_to_postgres(&partial, 0o600)?;
        std::fs::rename(&partial, &hba).map_err(io_error(&hba))?;
        self.run(
            "pg_ctl",
            &[
                "reload".into(),
                "-D".into(),
                self.pgdata.display().to_string(),
            ],
        )
    }

    /// Creates the service role if an older version did not (or made it
    /// NOLOGIN), and sets both passwords. The SQL goes through psql's stdin,
    /// never its arguments (which any local user can read in `ps`), and the
    /// session keeps the statement out of the server log.
    fn set_role_passwords(&self, passwords: &Passwords) -> Result<(), ClusterError> {
        let sql = format!(
            "SET log_statement = 'none';
             SET log_min_error_statement = panic;
             DO $$ BEGIN
               IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{SERVICE_ROLE}') THEN
                 CREATE ROLE {SERVICE_ROLE};
               END IF;
             END $$;
             ALTER ROLE {SERVICE_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION
               NOBYPASSRLS PASSWORD '{}';
             ALTER ROLE {OWNER_ROLE} PASSWORD '{}';
             REVOKE pg_execute_server_program, pg_read_server_files, pg_write_server_files
               FROM {SERVICE_ROLE};\n",
            passwords.service.0, passwords.owner.0
        );
        let mut child = self
            .psql(&[
                "-v".into(),
                "ON_ERROR_STOP=1".into(),
                "-f".into(),
                "-".into(),
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(io_error(&self.bin_dir.join("psql")))?;
        let written = child
            .stdin
            .take()
            .map(|mut stdin| stdin.write_all(sql.as_bytes()));
        let output = child
            .wait_with_output()
            .map_err(io_error(&self.bin_dir.join("psql")))?;
        if output.status.success() && matches!(written, Some(Ok(()))) {
            return Ok(());
        }
        let mut text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        for secret in [&passwords.owner, &passwords.service] {
            text = text.replace(&secret.0, "[redacted]");
        }
        Err(ClusterError::CommandFailed {
            command: "psql (setting the roles' passwords)".into(),
            output: text,
        })
    }

    /// `pg_ctl reload` only signals the server; wait until a connection
    /// without a password is refused, so nobody is told the cluster is
    /// private while it still trusts.
    fn wait_until_trust_is_gone(&self) -> Result<(), ClusterError> {
        let limit = Duration::from_secs(20);
        let started = Instant::now();
        while started.elapsed() < limit {
            let output = self
                .psql(&["-w".into(), "-c".into(), "SELECT 1".into()])
                .output()
                .map_err(io_error(&self.bin_dir.join("psql")))?;
            let stderr = String::from_utf8_lossy(&output.stderr);
            if !output.status.success() && stderr.contains("password") {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(ClusterError::StillTrusting(limit))
    }

    /// A client program's arguments to reach this cluster as the owner.
    fn as_owner(&self) -> [String; 6] {
        [
            "-h".into(),
            self.socket_dir.display().to_string(),
            "-p".into(),
            PORT.to_string(),
            "-U".into(),
            OWNER_ROLE.into(),
        ]
    }

    /// psql as the owner on the `postgres` database, without any password
    /// source: it gets in only while trust holds.
    fn psql(&self, args: &[String]) -> Command {
        let mut all = vec!["-X".to_string(), "-q".into()];
        all.extend(self.as_owner());
        all.extend(["-d".into(), "postgres".into()]);
        all.extend_from_slice(args);
        let mut command = self.command("psql", &all);
        command
            .env_remove("PGPASSWORD")
            .env("PGPASSFILE", "/dev/null");
        command
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
        let binary = match program {
            "psql" => find_psql().unwrap_or_else(|_| self.bin_dir.join(program)),
            _ => beside_pg_ctl(&self.bin_dir, program),
        };
        let mut command = if self.postgres_user.is_some() {
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

    fn url_as(&self, role: &str, password: &Secret, database: &str) -> String {
        let port = PORT.to_string();
        let mut pairs = vec![
            ("host", self.socket_dir.to_string_lossy()),
            ("port", port.as_str().into()),
            ("user", role.into()),
        ];
        if !password.0.is_empty() {
            pairs.push(("password", password.0.as_str().into()));
        }
        pairs.push(("dbname", database.into()));
        pairs
            .iter()
            .map(|(key, value)| key_value(key, value))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A libpq key/value connection string for `database` as the owner, the
    /// cluster's superuser: for creating databases and running migrations
    /// only. It holds the password: never log it.
    pub fn owner_url(&self, database: &str) -> String {
        self.url_as(OWNER_ROLE, &self.passwords.owner, database)
    }

    /// A libpq key/value connection string for `database` as the service
    /// role, for the service's pool. It holds the password: never log it.
    pub fn service_url(&self, database: &str) -> String {
        self.url_as(SERVICE_ROLE, &self.passwords.service, database)
    }

    /// True when this process started the server (or took over one whose
    /// starter is gone), and so should [`stop`](PrivateCluster::stop) it;
    /// false for a server found running under another live process.
    pub fn started_here(&self) -> bool {
        self.started_here
    }

    /// The directory of the server's unix socket: the cluster's only way
    /// in (it listens on no TCP port).
    pub fn socket_dir(&self) -> &Path {
        &self.socket_dir
    }

    /// The directory given to [`start`](PrivateCluster::start), canonical.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// Where the roles' passwords are kept (pgpass format).
    pub fn password_file(&self) -> PathBuf {
        self.data_dir.join(PASSWORD_FILE)
    }

    /// Stops the server (fast shutdown: open transactions roll back, nothing
    /// half-written survives).
    pub fn stop(&self) -> Result<(), ClusterError> {
        let _ = std::fs::remove_file(self.owner_file());
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
        let prefix = if self.postgres_user.is_some() {
            "runuser -u postgres -- "
        } else {
            ""
        };
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; \
             {prefix}{} stop -m immediate -D {} >/dev/null 2>&1; rm -rf {}",
            shell_word(&pg_ctl.to_string_lossy()),
            shell_word(&self.pgdata.to_string_lossy()),
            shell_word(&remove_dir.to_string_lossy())
        );
        let _ = Command::new("sh")
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
    }

    /// Initialises and starts a cluster under `data_dir` the way versions
    /// before the private setup did: trust for every local connection,
    /// directories open to everyone, no passwords. Only for the test that
    /// holds the in-place upgrade. Its URLs carry no passwords.
    #[doc(hidden)]
    pub fn start_trusting_like_older_versions(data_dir: &Path) -> Result<Self, ClusterError> {
        let mut cluster = Self::prepare(data_dir)?;
        for dir in [&cluster.data_dir, &cluster.socket_dir] {
            cluster.give_to_postgres(dir, 0o755)?;
        }
        cluster.init_and_run(Durability::Throwaway)?;
        Ok(cluster)
    }
}

/// `text` as one word for `sh`: single-quoted, each `'` written `'\\''`.
fn shell_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// `key=value` for a libpq key/value connection string, the value quoted
/// (`'…'`, with `\` and `'` escaped) when it is empty or holds a space, a
/// quote or a backslash: so that a path with a space (a data directory
/// under "My Games") stays one value. Values without any are written as
/// they are.
fn key_value(key: &str, value: &str) -> String {
    let plain = !value.is_empty()
        && !value
            .chars()
            .any(|c| c.is_whitespace() || c == '\'' || c == '\\');
    if plain {
        return format!("{key}={value}");
    }
    let escaped = value.replace('\\', "\\\\").replace('\'', "\\'");
    format!("{key}='{escaped}'")
}

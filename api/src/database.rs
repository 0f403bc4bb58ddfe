//! Where the service's database comes from: `DATABASE_URL`, or a private
//! cluster under the data directory, which a command that started it stops
//! when it is done with it (on drop: however the command ends).

use std::path::Path;

use anyhow::Context;
use umpire_pgcluster::{Durability, PrivateCluster};
use umpire_storage::ensure_database;

use crate::stop_signal::{StopSignal, StopSignals};

/// The database the service uses, how to reach it as each role, and the
/// cluster it started, if any (stopped when this is dropped).
pub struct Database {
    /// As the owner: for migrations only.
    pub owner_url: String,
    /// As the service role: for the pool of everything else.
    pub service_url: String,
    pub cluster: Option<ClusterGuard>,
}

/// A private cluster in use by this process, stopped on drop if this
/// process started it (one it found running is left so): so no command,
/// whether it succeeds, fails or stops early, leaves a cluster behind.
pub struct ClusterGuard(PrivateCluster);

impl ClusterGuard {
    pub fn cluster(&self) -> &PrivateCluster {
        &self.0
    }
}

impl Drop for ClusterGuard {
    fn drop(&mut self) {
        if self.0.started_here() {
            tracing::info!("stopping the private PostgreSQL cluster");
            // pg_ctl waits for the server: off the async threads.
            if let Err(error) = tokio::task::block_in_place(|| self.0.stop()) {
                tracing::warn!(%error, "could not stop the private cluster cleanly");
            }
        }
    }
}

/// The database name used inside a private cluster.
const DATABASE: &str = "umpire";

/// `umpire serve` was stopped by a signal before it started serving; the
/// cluster this start began, if any, is stopped. The exit status says which
/// signal.
#[derive(Debug, thiserror::Error)]
#[error(
    "stopped by {} before the service started; nothing was served \
     (the private cluster this start began is stopped)",
    .0.name()
)]
pub struct StoppedBeforeServing(pub StopSignal);

/// The database named by `DATABASE_URL`, or the private cluster under
/// `data_dir`, created there if there is none yet: for `serve`, `migrate`
/// and `import`, which write.
pub async fn open(data_dir: &Path) -> anyhow::Result<Database> {
    open_with(data_dir, Missing::Create, None).await
}

/// Like [`open`], for `umpire serve`: a SIGINT or SIGTERM while the cluster
/// is initialised or started ends startup ([`StoppedBeforeServing`]), with
/// the cluster stopped.
pub async fn open_unless_stopped(
    data_dir: &Path,
    stop: &mut StopSignals,
) -> anyhow::Result<Database> {
    open_with(data_dir, Missing::Create, Some(stop)).await
}

/// Like [`open`], but a command that only reads never creates a cluster: it
/// says where it looked and how to point it at the database instead.
pub async fn open_existing(data_dir: &Path) -> anyhow::Result<Database> {
    open_with(data_dir, Missing::Refuse, None).await
}

/// Where a command that only reads finds stored games: the URL given with
/// `--replica` (a standby's, say), else as [`open_existing`] in `data_dir`.
pub async fn open_for_reading(replica: Option<&str>, data_dir: &Path) -> anyhow::Result<Database> {
    match replica.map(str::trim) {
        Some(url) if !url.is_empty() => {
            tracing::info!("reading stored games from the database given with --replica");
            Ok(Database {
                owner_url: url.to_string(),
                service_url: url.to_string(),
                cluster: None,
            })
        }
        _ => open_existing(data_dir).await,
    }
}

#[derive(PartialEq)]
enum Missing {
    Create,
    Refuse,
}

async fn open_with(
    data_dir: &Path,
    missing: Missing,
    mut stop: Option<&mut StopSignals>,
) -> anyhow::Result<Database> {
    if let Ok(url) = std::env::var("DATABASE_URL") {
        if !url.is_empty() {
            tracing::info!("using the database from DATABASE_URL");
            warn_if_superuser(&url).await;
            // One URL for both: migrations need a role that may create
            // tables, and the pool narrows itself with SET ROLE umpire_app.
            return Ok(Database {
                owner_url: url.clone(),
                service_url: url,
                cluster: None,
            });
        }
    }
    if missing == Missing::Refuse && !PrivateCluster::exists(data_dir) {
        anyhow::bail!(
            "no database: DATABASE_URL is not set and there is no Umpire cluster under {} \
             (the data directory). Point --data-dir (or UMPIRE_DATA_DIR) at the one \
             `umpire serve` uses, or set DATABASE_URL.",
            data_dir.display()
        );
    }
    tracing::info!(
        "starting the private PostgreSQL cluster under {}{}",
        data_dir.display(),
        if PrivateCluster::exists(data_dir) {
            ""
        } else {
            " (initialising it first: a first start takes several seconds)"
        }
    );
    let dir = data_dir.to_path_buf();
    let mut starting =
        tokio::task::spawn_blocking(move || PrivateCluster::start(&dir, Durability::Full));
    let started = match stop.as_deref_mut() {
        None => (&mut starting).await,
        Some(stop) => tokio::select! {
            started = &mut starting => started,
            signal = stop.received() => {
                tracing::warn!(
                    "{} while the private cluster starts: stopping once the step under way ends",
                    signal.name()
                );
                // initdb and pg_ctl run on a blocking thread and cannot be
                // cut short safely; wait for them, then undo what they began.
                if let Ok(Ok(cluster)) = starting.await {
                    drop(ClusterGuard(cluster));
                }
                return Err(StoppedBeforeServing(signal).into());
            }
        },
    };
    let cluster = ClusterGuard(
        started
            .context("starting the private cluster")?
            .with_context(|| {
                format!(
                    "starting the private PostgreSQL cluster under {}",
                    data_dir.display()
                )
            })?,
    );
    tracing::info!(
        socket_dir = %cluster.cluster().socket_dir().display(),
        password_file = %cluster.cluster().password_file().display(),
        reused = !cluster.cluster().started_here(),
        "private PostgreSQL cluster under {} (unix socket only, passwords required)",
        data_dir.display()
    );
    let admin_url = cluster.cluster().owner_url("postgres");
    let created = ensure_database(&admin_url, DATABASE, None);
    // On any way out below, the guard stops the cluster this start began.
    let created = match stop {
        None => created.await,
        Some(stop) => tokio::select! {
            created = created => created,
            signal = stop.received() => return Err(StoppedBeforeServing(signal).into()),
        },
    };
    created.context("could not create the database")?;
    Ok(Database {
        owner_url: cluster.cluster().owner_url(DATABASE),
        service_url: cluster.cluster().service_url(DATABASE),
        cluster: Some(cluster),
    })
}

/// A superuser login is no boundary: `SET ROLE umpire_app` can be undone by
/// any statement the pool runs, so say so once, at start.
async fn warn_if_superuser(url: &str) {
    match umpire_storage::logs_in_as_superuser(url).await {
        Ok(true) => tracing::warn!(
            "DATABASE_URL logs in as a PostgreSQL superuser: a bug or an injected statement \
             could run programs on the database host (COPY ... TO PROGRAM) and rewrite the \
             game log past its append-only triggers. Create a role with LOGIN NOSUPERUSER, \
             grant it umpire_app's privileges (GRANT umpire_app TO it), run `umpire migrate` \
             with the superuser URL once, and serve with the new role's URL"
        ),
        Ok(false) => {}
        Err(error) => {
            tracing::warn!(%error, "could not check whether DATABASE_URL logs in as a superuser")
        }
    }
}

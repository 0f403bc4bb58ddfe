//! Where the service's database comes from: `DATABASE_URL`, or a private
//! cluster under the data directory.

use std::path::Path;

use umpire_storage::cluster::ensure_database;
use umpire_storage::{Durability, PrivateCluster};

/// The database the service uses, how to reach it as each role, and the
/// cluster it started, if any.
pub struct Database {
    /// As the owner: for migrations only.
    pub owner_url: String,
    /// As the service role: for the pool of everything else.
    pub service_url: String,
    pub cluster: Option<PrivateCluster>,
}

/// The database name used inside a private cluster.
const DATABASE: &str = "umpire";

/// The database named by `DATABASE_URL`, or the private cluster under
/// `data_dir`, created there if there is none yet: for `serve`, `migrate`
/// and `import`, which write.
pub async fn open(data_dir: &Path) -> Result<Database, String> {
    open_with(data_dir, Missing::Create).await
}

/// Like [`open`], but a command that only reads never creates a cluster: it
/// says where it looked and how to point it at the database instead.
pub async fn open_existing(data_dir: &Path) -> Result<Database, String> {
    open_with(data_dir, Missing::Refuse).await
}

#[derive(PartialEq)]
enum Missing {
    Create,
    Refuse,
}

async fn open_with(data_dir: &Path, missing: Missing) -> Result<Database, String> {
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
        return Err(format!(
            "no database: DATABASE_URL is not set and there is no Umpire cluster under {} \
             (the data directory). Point --data-dir (or UMPIRE_DATA_DIR) at the one \
             `umpire serve` uses, or set DATABASE_URL.",
            data_dir.display()
        ));
    }
    let dir = data_dir.to_path_buf();
    let cluster =
        tokio::task::spawn_blocking(move || PrivateCluster::start(&dir, Durability::Full))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
    tracing::info!(
        socket_dir = %cluster.socket_dir().display(),
        password_file = %cluster.password_file().display(),
        reused = !cluster.started_here,
        "private PostgreSQL cluster under {} (unix socket only, passwords required)",
        data_dir.display()
    );
    ensure_database(&cluster.owner_url("postgres"), DATABASE, None)
        .await
        .map_err(|e| format!("could not create the database: {e}"))?;
    Ok(Database {
        owner_url: cluster.owner_url(DATABASE),
        service_url: cluster.service_url(DATABASE),
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

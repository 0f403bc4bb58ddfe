//! Where the service's database comes from: `DATABASE_URL`, or a private
//! cluster under the data directory.

use std::path::Path;

use umpire_storage::cluster::ensure_database;
use umpire_storage::{Durability, PrivateCluster};

/// The database the service uses, and the cluster it started, if any.
pub struct Database {
    pub url: String,
    pub cluster: Option<PrivateCluster>,
}

/// The database name used inside a private cluster.
const DATABASE: &str = "umpire";

pub async fn open(data_dir: &Path) -> Result<Database, String> {
    if let Ok(url) = std::env::var("DATABASE_URL") {
        if !url.is_empty() {
            tracing::info!("using the database from DATABASE_URL");
            return Ok(Database { url, cluster: None });
        }
    }
    let dir = data_dir.to_path_buf();
    let cluster =
        tokio::task::spawn_blocking(move || PrivateCluster::start(&dir, Durability::Full))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
    tracing::info!(
        socket_dir = %cluster.socket_dir().display(),
        reused = !cluster.started_here,
        "private PostgreSQL cluster under {} (unix socket only)",
        data_dir.display()
    );
    ensure_database(&cluster.url("postgres"), DATABASE, None)
        .await
        .map_err(|e| format!("could not create the database: {e}"))?;
    Ok(Database {
        url: cluster.url(DATABASE),
        cluster: Some(cluster),
    })
}

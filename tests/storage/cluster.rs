//! The private cluster belongs to the service alone: no other local account
//! reaches it, every connection needs its role's password, and the role the
//! service's pool logs in as cannot escape its grants.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use umpire_storage::cluster::find_psql;
use umpire_storage::testing::patient_pool;
use umpire_storage::{Durability, PrivateCluster};

fn running_as_root() -> bool {
    std::fs::metadata("/proc/self").unwrap().uid() == 0
}

fn scratch_dir() -> PathBuf {
    tempfile::Builder::new()
        .prefix("umpire-cluster-test")
        .tempdir()
        .unwrap()
        .keep()
}

fn password_in(url: &str) -> &str {
    url.split_whitespace()
        .find_map(|part| part.strip_prefix("password="))
        .expect("a password in the URL")
}

/// psql as the OS user `nobody`, to the owner role on the cluster's socket,
/// given `password` if any: what a hostile neighbour on the machine can try.
fn psql_as_nobody(socket_dir: &Path, password: Option<&str>) -> Output {
    let mut command = Command::new("runuser");
    command
        .args(["-u", "nobody", "--", "env"])
        .arg(format!("PGPASSWORD={}", password.unwrap_or("")))
        .arg("PGPASSFILE=/dev/null")
        .arg(find_psql().unwrap())
        .args(["-X", "-w", "-h"])
        .arg(socket_dir)
        .args(["-U", "umpire", "-d", "postgres", "-c", "SELECT 1"])
        .current_dir("/");
    command.output().unwrap()
}

/// No account but the one PostgreSQL runs as may enter these.
fn assert_private(paths: &[&Path]) {
    for path in paths {
        let mode = std::fs::metadata(path).unwrap().mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "{} has mode {mode:o}", path.display());
    }
}

/// The cluster as a hostile local account and as a client without the
/// password sees it: shut.
async fn assert_closed_to_strangers(cluster: &PrivateCluster) {
    let data_dir = cluster.data_dir();
    assert_private(&[
        data_dir,
        cluster.socket_dir(),
        &data_dir.join("pgdata"),
        &cluster.password_file(),
    ]);
    if running_as_root() {
        // Even knowing the password, nobody cannot reach the socket.
        let owner_url = cluster.owner_url("postgres");
        let refused = psql_as_nobody(cluster.socket_dir(), Some(password_in(&owner_url)));
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "nobody connected: {stderr}");
        assert!(stderr.contains("Permission denied"), "{stderr}");
        let postgres_uid = std::fs::metadata(data_dir.join("pgdata")).unwrap().uid();
        for dir in [data_dir, cluster.socket_dir()] {
            assert_eq!(std::fs::metadata(dir).unwrap().uid(), postgres_uid);
        }
    }
    for role in ["umpire", "umpire_app"] {
        let url = format!(
            "host={} port=5432 user={role} dbname=postgres",
            cluster.socket_dir().display()
        );
        let refused = tokio_postgres::connect(&url, tokio_postgres::NoTls).await;
        let error = refused
            .err()
            .unwrap_or_else(|| panic!("{role} got in without a password"));
        // The client had nothing to answer the server's password request with.
        assert!(
            format!("{error:?}").contains("password missing"),
            "{role}: {error:?}"
        );
    }
}

async fn session_is_superuser(url: &str) -> bool {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .query_one(
            "SELECT rolsuper FROM pg_roles WHERE rolname = session_user",
            &[],
        )
        .await
        .unwrap()
        .get(0)
}

#[tokio::test]
async fn a_private_cluster_is_closed_to_other_accounts_and_asks_every_role_for_its_password() {
    let dir = scratch_dir();
    let cluster = PrivateCluster::start(&dir, Durability::Throwaway).unwrap();
    cluster.stop_when_process_exits(std::process::id(), &dir);
    assert_closed_to_strangers(&cluster).await;
    assert!(session_is_superuser(&cluster.owner_url("postgres")).await);
    assert!(!session_is_superuser(&cluster.service_url("postgres")).await);
}

#[tokio::test]
async fn the_service_role_cannot_escape_its_grants() {
    let url = umpire_storage::testing::fresh_database_url().await;
    assert!(!session_is_superuser(&url).await, "the pool's login role");
    let pool = patient_pool(&url, 1);
    let client = pool.get().await.unwrap();
    // SET ROLE is no boundary: every statement first drops back to the
    // role the pool logged in as.
    for (statement, refusal) in [
        (
            "COPY (SELECT 1) TO PROGRAM 'true'",
            "pg_execute_server_program",
        ),
        ("UPDATE events SET actor = 'x'", "permission denied"),
        ("DELETE FROM events", "permission denied"),
        ("DELETE FROM tokens", "permission denied"),
        ("CREATE TABLE stash (x int)", "permission denied"),
        ("CREATE ROLE intruder", "permission denied"),
    ] {
        let error = client
            .batch_execute(&format!("RESET ROLE; {statement}"))
            .await
            .expect_err(statement);
        let message = error
            .as_db_error()
            .map(|e| e.message().to_string())
            .unwrap_or_else(|| error.to_string());
        assert!(message.contains(refusal), "{statement}: {message}");
    }
    // What the service does need still works: reading seeds for exports.
    client.batch_execute("RESET ROLE").await.unwrap();
    let seeds = client.query("SELECT seed FROM games", &[]).await;
    assert!(seeds.is_ok(), "{seeds:?}");
}

#[tokio::test]
async fn a_trusting_cluster_from_an_older_version_is_secured_in_place() {
    let dir = scratch_dir();
    let old = PrivateCluster::start_trusting_like_older_versions(&dir).unwrap();
    old.stop_when_process_exits(std::process::id(), &dir);
    // The old setup as it was: anyone in, as the superuser.
    if running_as_root() {
        let open = psql_as_nobody(old.socket_dir(), None);
        assert!(
            open.status.success(),
            "{}",
            String::from_utf8_lossy(&open.stderr)
        );
    }
    assert!(session_is_superuser(&old.owner_url("postgres")).await);
    umpire_storage::cluster::ensure_database(&old.owner_url("postgres"), "umpire", None)
        .await
        .unwrap();
    umpire_storage::migrate(&old.owner_url("umpire"))
        .await
        .unwrap();

    let upgraded = PrivateCluster::start(&dir, Durability::Throwaway).unwrap();
    assert!(!upgraded.started_here, "the running server was reused");
    assert_closed_to_strangers(&upgraded).await;
    // The older migration made umpire_app NOLOGIN; it logs in now, with the
    // grants that migration gave it.
    let store = umpire_storage::EventStore::new(patient_pool(&upgraded.service_url("umpire"), 1));
    assert_eq!(store.version(uuid::Uuid::new_v4()).await.unwrap(), 0);
    assert!(!session_is_superuser(&upgraded.service_url("umpire")).await);

    // A later start finds the same passwords.
    let again = PrivateCluster::start(&dir, Durability::Throwaway).unwrap();
    assert_eq!(again.owner_url("umpire"), upgraded.owner_url("umpire"));
    assert_eq!(again.service_url("umpire"), upgraded.service_url("umpire"));
}

//! The private cluster belongs to the service alone: no other local account
//! reaches it, every connection needs its role's password, and the role the
//! service's pool logs in as is no superuser. A cluster of its own for each
//! test, in a temporary directory, stopped when the test binary exits. (That
//! the service role cannot escape its grants is the store's test, on the
//! migrated schema: `tests/storage/roles.rs`.)

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use umpire_pgcluster::{find_psql, Durability, PrivateCluster};

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

/// A connection of its own, its driver spawned.
async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
}

async fn execute(url: &str, statements: &str) {
    connect(url)
        .await
        .batch_execute(statements)
        .await
        .unwrap_or_else(|e| panic!("{statements}: {e}"));
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
    // What the older migrations left (migrations/V1): the service role
    // NOLOGIN, granted reading and inserting on the store's tables.
    execute(&old.owner_url("postgres"), "CREATE DATABASE umpire").await;
    execute(
        &old.owner_url("umpire"),
        "CREATE ROLE umpire_app NOLOGIN;
         CREATE TABLE events (seq bigint);
         INSERT INTO events VALUES (1);
         GRANT SELECT, INSERT ON events TO umpire_app;",
    )
    .await;

    let upgraded = PrivateCluster::start(&dir, Durability::Throwaway).unwrap();
    assert!(!upgraded.started_here(), "the running server was reused");
    assert_closed_to_strangers(&upgraded).await;
    // The older migration made umpire_app NOLOGIN; it logs in now, with the
    // grants that migration gave it.
    let service = connect(&upgraded.service_url("umpire")).await;
    let seq: i64 = service
        .query_one("SELECT seq FROM events", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(seq, 1);
    assert!(!session_is_superuser(&upgraded.service_url("umpire")).await);

    // A later start finds the same passwords.
    let again = PrivateCluster::start(&dir, Durability::Throwaway).unwrap();
    assert_eq!(again.owner_url("umpire"), upgraded.owner_url("umpire"));
    assert_eq!(again.service_url("umpire"), upgraded.service_url("umpire"));
}

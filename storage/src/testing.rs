//! Real PostgreSQL for tests: one private cluster per test binary (or the
//! server named by `TEST_DATABASE_URL`), a template database migrated once,
//! and a fresh database cloned from it for every test.
//!
//! The private cluster is set up exactly as the service's is (passwords, two
//! roles): the template is created and migrated as the owner, and a test's
//! pool logs in as the service role.

use std::sync::OnceLock;

use std::time::Duration;

use umpire_pgcluster::{Durability, PrivateCluster};

use crate::{ensure_database, with_database, Pool, PoolTimeouts, StoreError};

const TEMPLATE: &str = "umpire_test_template";

/// The tests' pools' timeouts. On a machine busy with other work (a fresh
/// build beside other jobs) opening a connection took longer than the
/// service's 3 s, and a statement can wait long behind others; a test checks
/// what happens, not how soon, so these are ceilings against a hang, never
/// a pace. A test of the service's own limits uses [`PoolTimeouts::SERVICE`].
pub const PATIENT: PoolTimeouts = PoolTimeouts {
    wait: Duration::from_secs(120),
    statement: Duration::from_secs(300),
    lock: Duration::from_secs(120),
};

/// A pool of `max_size` connections on `database_url`, with [`PATIENT`]
/// timeouts: what a test's store uses.
pub fn patient_pool(database_url: &str, max_size: usize) -> Pool {
    crate::connect_with(database_url, max_size, PATIENT).expect("a pool")
}

struct TestServer {
    /// Connection strings to the `postgres` database as the owner and as
    /// the service role (the same URL for `TEST_DATABASE_URL`).
    owner_url: String,
    service_url: String,
    // Kept so the cluster's handle lives as long as the process.
    _cluster: Option<PrivateCluster>,
}

/// One test's database, and how to reach it as each role.
#[derive(Debug, Clone)]
pub struct TestDatabase {
    /// As the owner: what migrations use; for tests that check what even
    /// the owner cannot do.
    pub owner_url: String,
    /// As the service role: what the service's pool uses.
    pub service_url: String,
}

static SERVER: OnceLock<Result<TestServer, String>> = OnceLock::new();

fn start_server() -> Result<TestServer, String> {
    let (owner_url, service_url, cluster) = match std::env::var("TEST_DATABASE_URL") {
        Ok(url) if !url.is_empty() => (url.clone(), url, None),
        _ => {
            let dir = tempfile::Builder::new()
                .prefix("umpire-test-pg")
                .tempdir()
                .map_err(|e| e.to_string())?
                .keep();
            let cluster =
                PrivateCluster::start(&dir, Durability::Throwaway).map_err(|e| e.to_string())?;
            cluster.stop_when_process_exits(std::process::id(), &dir);
            (
                cluster.owner_url("postgres"),
                cluster.service_url("postgres"),
                Some(cluster),
            )
        }
    };
    // Migrate the template on a runtime of its own: this runs once, from
    // whichever test's runtime gets here first.
    let template_url = with_database(&owner_url, TEMPLATE).map_err(|e| e.to_string())?;
    let owner = owner_url.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        runtime
            .block_on(async {
                // A template left by an earlier run against TEST_DATABASE_URL is
                // kept and brought up to date: refinery applies only the
                // migrations it lacks. Test binaries run one after another, so
                // two never migrate it at once.
                ensure_database(&owner, TEMPLATE, None).await?;
                crate::migrate(&template_url).await
            })
            .map_err(|e: StoreError| e.to_string())
    })
    .join()
    .map_err(|_| "template migration panicked".to_string())??;
    Ok(TestServer {
        owner_url,
        service_url,
        _cluster: cluster,
    })
}

/// A new, migrated, empty database for one test.
pub async fn fresh_database() -> TestDatabase {
    let server = SERVER
        .get_or_init(start_server)
        .as_ref()
        .unwrap_or_else(|e| panic!("could not start test PostgreSQL: {e}"));
    let name = format!("umpire_test_{}", uuid::Uuid::new_v4().simple());
    ensure_database(&server.owner_url, &name, Some(TEMPLATE))
        .await
        .unwrap_or_else(|e| panic!("could not create test database {name}: {e:?}"));
    TestDatabase {
        owner_url: with_database(&server.owner_url, &name).expect("connection string"),
        service_url: with_database(&server.service_url, &name).expect("connection string"),
    }
}

/// A connection string to a new, migrated, empty database for one test, as
/// the service role: what a test's pool connects with.
pub async fn fresh_database_url() -> String {
    fresh_database().await.service_url
}

/// A new database migrated only up to `version`, as a build of that time
/// left it (for tests of a later migration; `crate::migrate` finishes it).
pub async fn database_migrated_up_to(version: i32) -> TestDatabase {
    let server = SERVER
        .get_or_init(start_server)
        .as_ref()
        .unwrap_or_else(|e| panic!("could not start test PostgreSQL: {e}"));
    let name = format!("umpire_test_{}", uuid::Uuid::new_v4().simple());
    ensure_database(&server.owner_url, &name, None)
        .await
        .unwrap_or_else(|e| panic!("could not create test database {name}: {e:?}"));
    let database = TestDatabase {
        owner_url: with_database(&server.owner_url, &name).expect("connection string"),
        service_url: with_database(&server.service_url, &name).expect("connection string"),
    };
    crate::pool::migrate_up_to(&database.owner_url, version)
        .await
        .unwrap_or_else(|e| panic!("could not migrate {name} to V{version}: {e}"));
    database
}

/// A primary of its own with one streaming standby (PostgreSQL's own
/// replication: `pg_basebackup -R`), a migrated database on both, and the
/// means to hold the standby back: for the tests of reads on standbys.
/// Each is its own pair of clusters, so one test pausing its standby never
/// holds back another's. Both stop when the test binary exits.
pub struct ReplicatedDatabase {
    /// The primary's database, as each role.
    pub primary: TestDatabase,
    /// The same database on the standby, as each role (read-only there).
    pub standby: TestDatabase,
    primary_cluster: PrivateCluster,
    standby_cluster: PrivateCluster,
}

const REPLICATED: &str = "umpire";

impl ReplicatedDatabase {
    /// Starts the pair. Blocking work (initdb, pg_basebackup) runs off the
    /// async threads.
    pub async fn start() -> ReplicatedDatabase {
        let pair = tokio::task::spawn_blocking(|| -> Result<_, String> {
            let dir = tempfile::Builder::new()
                .prefix("umpire-test-replicated")
                .tempdir()
                .map_err(|e| e.to_string())?
                .keep();
            let primary = PrivateCluster::start(&dir.join("primary"), Durability::Throwaway)
                .map_err(|e| e.to_string())?;
            primary.stop_when_process_exits(std::process::id(), &dir);
            Ok((dir, primary))
        })
        .await
        .expect("starting the primary")
        .unwrap_or_else(|e| panic!("could not start the primary: {e}"));
        let (dir, primary_cluster) = pair;
        ensure_database(&primary_cluster.owner_url("postgres"), REPLICATED, None)
            .await
            .expect("creating the database");
        crate::migrate(&primary_cluster.owner_url(REPLICATED))
            .await
            .expect("migrating the primary");
        let standby_dir = dir.join("standby");
        let (primary_cluster, standby_cluster) = tokio::task::spawn_blocking(move || {
            let standby = primary_cluster
                .start_standby(&standby_dir, Durability::Throwaway)
                .map_err(|e| e.to_string());
            if let Ok(standby) = &standby {
                standby.stop_when_process_exits(std::process::id(), &standby_dir);
            }
            standby.map(|standby| (primary_cluster, standby))
        })
        .await
        .expect("starting the standby")
        .unwrap_or_else(|e| panic!("could not start the standby: {e}"));
        ReplicatedDatabase {
            primary: TestDatabase {
                owner_url: primary_cluster.owner_url(REPLICATED),
                service_url: primary_cluster.service_url(REPLICATED),
            },
            standby: TestDatabase {
                owner_url: standby_cluster.owner_url(REPLICATED),
                service_url: standby_cluster.service_url(REPLICATED),
            },
            primary_cluster,
            standby_cluster,
        }
    }

    /// Stops the standby replaying WAL: it keeps answering, at the versions
    /// it held when paused.
    pub async fn pause_replay(&self) {
        self.on_standby("SELECT pg_wal_replay_pause()").await;
    }

    /// Replays everything the primary has committed, then pauses there.
    pub async fn pause_when_caught_up(&self) {
        self.wait_until_caught_up().await;
        self.pause_replay().await;
    }

    pub async fn resume_replay(&self) {
        self.on_standby("SELECT pg_wal_replay_resume()").await;
    }

    /// Waits until the standby has replayed everything the primary has
    /// committed so far (panics after a minute). The primary's WAL insert
    /// position, not its write position: the test clusters commit without
    /// waiting for the WAL to be written, so a commit can be past the
    /// position written so far.
    pub async fn wait_until_caught_up(&self) {
        let primary = connect(&self.primary.owner_url).await;
        let target: String = primary
            .query_one("SELECT pg_current_wal_insert_lsn()::text", &[])
            .await
            .expect("the primary's WAL position")
            .get(0);
        let standby = connect(&self.standby.owner_url).await;
        for _ in 0..1200 {
            let caught_up: bool = standby
                .query_one(
                    "SELECT pg_last_wal_replay_lsn() >= $1::text::pg_lsn",
                    &[&target],
                )
                .await
                .expect("the standby's WAL position")
                .get(0);
            if caught_up {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("the standby did not replay the primary's WAL within a minute");
    }

    /// Stops the standby's server (fast): its connections are closed.
    pub async fn stop_standby(&self) {
        let stopped = tokio::task::block_in_place(|| self.standby_cluster.stop());
        stopped.expect("stopping the standby");
    }

    /// Starts the stopped standby again: it catches up from the primary.
    pub async fn restart_standby(&self) {
        let dir = self.standby_cluster.data_dir().to_path_buf();
        tokio::task::block_in_place(|| {
            self.primary_cluster
                .start_standby(&dir, Durability::Throwaway)
                .expect("restarting the standby")
        });
    }

    /// Promotes the standby to a primary of its own (as a failover does),
    /// its open connections kept.
    pub async fn promote_standby(&self) {
        self.on_standby("SELECT pg_promote()").await;
    }

    async fn on_standby(&self, statement: &str) {
        connect(&self.standby.owner_url)
            .await
            .batch_execute(statement)
            .await
            .unwrap_or_else(|e| panic!("{statement} on the standby: {e}"));
    }
}

/// A connection of its own, its driver spawned.
async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connecting");
    tokio::spawn(connection);
    client
}

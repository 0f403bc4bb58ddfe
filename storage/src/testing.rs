//! Real PostgreSQL for tests: one private cluster per test binary (or the
//! server named by `TEST_DATABASE_URL`), a template database migrated once,
//! and a fresh database cloned from it for every test.
//!
//! The private cluster is set up exactly as the service's is (passwords, two
//! roles): the template is created and migrated as the owner, and a test's
//! pool logs in as the service role.

use std::sync::OnceLock;

use crate::cluster::{ensure_database, with_database, Durability, PrivateCluster};
use crate::StoreError;

const TEMPLATE: &str = "umpire_test_template";

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

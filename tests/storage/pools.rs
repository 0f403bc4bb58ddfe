//! The pools' timeouts: the service's give up in seconds, the tests' wait
//! as long as a busy machine needs, and each connection carries its pool's
//! statement and lock timeouts.

use std::time::{Duration, Instant};

use umpire_storage::testing::{patient_pool, PATIENT};
use umpire_storage::{connect, Pool, POOL_WAIT};

async fn session_setting(pool: &Pool, name: &str) -> String {
    let client = pool.get().await.expect("a connection");
    client
        .query_one(&format!("SHOW {name}"), &[])
        .await
        .expect("SHOW")
        .get(0)
}

#[tokio::test]
async fn each_connection_carries_its_pools_statement_and_lock_timeouts() {
    let url = umpire_storage::testing::fresh_database_url().await;
    let service = connect(&url, 1).expect("pool");
    assert_eq!(session_setting(&service, "statement_timeout").await, "10s");
    assert_eq!(session_setting(&service, "lock_timeout").await, "5s");
    let patient = patient_pool(&url, 1);
    assert_eq!(session_setting(&patient, "statement_timeout").await, "5min");
    assert_eq!(session_setting(&patient, "lock_timeout").await, "2min");
}

#[tokio::test]
async fn the_services_pool_gives_up_waiting_after_its_pool_wait() {
    let url = umpire_storage::testing::fresh_database_url().await;
    let pool = connect(&url, 1).expect("pool");
    let held = pool.get().await.expect("the only connection");
    let started = Instant::now();
    assert!(pool.get().await.is_err(), "a second connection");
    assert!(started.elapsed() >= POOL_WAIT, "{:?}", started.elapsed());
    drop(held);
}

#[tokio::test]
async fn a_test_pool_waits_for_a_connection_longer_than_the_service_would() {
    let url = umpire_storage::testing::fresh_database_url().await;
    let pool = patient_pool(&url, 1);
    let held = pool.get().await.expect("the only connection");
    let started = Instant::now();
    // Released only after the service's pool would have given up.
    let release = tokio::spawn(async move {
        tokio::time::sleep(POOL_WAIT + Duration::from_secs(1)).await;
        drop(held);
    });
    let client = pool.get().await.expect("the connection, once released");
    assert!(started.elapsed() > POOL_WAIT);
    assert!(PATIENT.wait > POOL_WAIT * 10);
    client.query_one("SELECT 1", &[]).await.expect("usable");
    release.await.unwrap();
}

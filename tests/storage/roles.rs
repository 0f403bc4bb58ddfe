//! The role the service's pool logs in as cannot escape its grants, on the
//! migrated schema in the tests' private cluster.

use umpire_storage::testing::patient_pool;

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

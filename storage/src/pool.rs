//! Connection pool and migrations.

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, RecyclingMethod, Runtime, Timeouts};
use tokio_postgres::NoTls;

use crate::StoreError;

pub use deadpool_postgres::Pool;

mod embedded {
    refinery::embed_migrations!("../migrations");
}

/// Builds a bounded pool. Every connection gets a statement timeout and, where
/// the role exists, runs as `umpire_app`, which may insert events but not
/// change them. Waiting for a connection is bounded too, so an exhausted pool
/// answers 503 instead of hanging.
pub fn connect(database_url: &str, max_size: usize) -> Result<Pool, StoreError> {
    let config: tokio_postgres::Config =
        database_url.parse().map_err(|e: tokio_postgres::Error| {
            StoreError::Unavailable(format!("bad database URL: {e}"))
        })?;
    let manager = Manager::from_config(
        config,
        NoTls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Pool::builder(manager)
        .max_size(max_size)
        .runtime(Runtime::Tokio1)
        .timeouts(Timeouts {
            wait: Some(Duration::from_secs(3)),
            create: Some(Duration::from_secs(3)),
            recycle: Some(Duration::from_secs(3)),
        })
        .post_create(deadpool_postgres::Hook::async_fn(|client, _| {
            Box::pin(async move {
                client
                    .batch_execute(
                        "SET statement_timeout = '10s';
                         SET lock_timeout = '5s';
                         SET plan_cache_mode = force_generic_plan;
                         DO $$ BEGIN
                           IF pg_has_role(current_user, 'umpire_app', 'MEMBER') THEN
                             SET ROLE umpire_app;
                           END IF;
                         END $$;",
                    )
                    .await
                    .map_err(deadpool_postgres::HookError::Backend)
            })
        }))
        .build()
        .map_err(|e| StoreError::Unavailable(e.to_string()))
}

/// Applies the SQL migrations in `migrations/` that are not yet applied.
/// Runs on its own connection as the connecting user (not `umpire_app`), under
/// an advisory lock so two starting services do not race.
pub async fn migrate(database_url: &str) -> Result<(), StoreError> {
    let (mut client, connection) = tokio_postgres::connect(database_url, NoTls).await?;
    let connection = tokio::spawn(connection);
    client
        .batch_execute("SELECT pg_advisory_lock(7501746)")
        .await?;
    let outcome = embedded::migrations::runner()
        .run_async(&mut client)
        .await
        .map(|_| ())
        .map_err(|e| StoreError::Migration(e.to_string()));
    client
        .batch_execute("SELECT pg_advisory_unlock(7501746)")
        .await?;
    drop(client);
    let _ = connection.await;
    outcome
}

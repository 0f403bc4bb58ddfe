//! Connection pool and migrations.

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, RecyclingMethod, Runtime, Timeouts};
use tokio_postgres::NoTls;

use crate::StoreError;

pub use deadpool_postgres::Pool;

mod embedded {
    refinery::embed_migrations!("../migrations");
}

/// Builds a bounded pool. Every connection gets a statement timeout.
/// `database_url` should log in as `umpire_app` (the private cluster's
/// `service_url`, in umpire-pgcluster), which may read and insert but never
/// change or remove. For an external URL that logs in as
/// another role, connections still `SET ROLE umpire_app` where they may;
/// that narrows what a statement can do by mistake but is no boundary (a
/// session can `RESET ROLE`), hence the warning from
/// [`logs_in_as_superuser`]. Waiting for a connection is bounded too, so an
/// exhausted pool answers 503 instead of hanging (after [`POOL_WAIT`]).
pub fn connect(database_url: &str, max_size: usize) -> Result<Pool, StoreError> {
    connect_with(database_url, max_size, PoolTimeouts::SERVICE)
}

/// How long the service's pool waits for a free connection, to open one,
/// or to check one it reuses, before the request is answered 503.
pub const POOL_WAIT: Duration = Duration::from_secs(3);

/// How long a pool waits for a connection and lets a statement run or wait
/// for a lock before giving up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolTimeouts {
    /// For a free connection, to open one, or to check one it reuses.
    pub wait: Duration,
    /// Each statement's `statement_timeout`.
    pub statement: Duration,
    /// Each statement's `lock_timeout`.
    pub lock: Duration,
}

impl PoolTimeouts {
    /// The service's: a request gives up in seconds, answered 503, rather
    /// than queueing behind a database that cannot keep up.
    pub const SERVICE: PoolTimeouts = PoolTimeouts {
        wait: POOL_WAIT,
        statement: Duration::from_secs(10),
        lock: Duration::from_secs(5),
    };

    /// The service's, waiting up to `wait` for a connection.
    pub const fn waiting(wait: Duration) -> PoolTimeouts {
        PoolTimeouts {
            wait,
            ..PoolTimeouts::SERVICE
        }
    }
}

/// [`connect`], waiting up to `wait` instead of [`POOL_WAIT`].
pub fn connect_waiting(
    database_url: &str,
    max_size: usize,
    wait: Duration,
) -> Result<Pool, StoreError> {
    connect_with(database_url, max_size, PoolTimeouts::waiting(wait))
}

/// [`connect`] with `timeouts` instead of [`PoolTimeouts::SERVICE`].
pub fn connect_with(
    database_url: &str,
    max_size: usize,
    timeouts: PoolTimeouts,
) -> Result<Pool, StoreError> {
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
    let session: std::sync::Arc<str> = format!(
        "SET statement_timeout = '{}ms';
         SET lock_timeout = '{}ms';
         SET plan_cache_mode = force_generic_plan;
         DO $$ BEGIN
           IF pg_has_role(current_user, 'umpire_app', 'MEMBER') THEN
             SET ROLE umpire_app;
           END IF;
         END $$;",
        timeouts.statement.as_millis(),
        timeouts.lock.as_millis(),
    )
    .into();
    Pool::builder(manager)
        .max_size(max_size)
        .runtime(Runtime::Tokio1)
        .timeouts(Timeouts {
            wait: Some(timeouts.wait),
            create: Some(timeouts.wait),
            recycle: Some(timeouts.wait),
        })
        .post_create(deadpool_postgres::Hook::async_fn(move |client, _| {
            let session = session.clone();
            Box::pin(async move {
                client
                    .batch_execute(&session)
                    .await
                    .map_err(deadpool_postgres::HookError::Backend)
            })
        }))
        .build()
        .map_err(|e| StoreError::Unavailable(e.to_string()))
}

/// Whether `database_url` logs in as a superuser (the session's role, not a
/// role it may `SET ROLE` to): such a pool could run programs on the database
/// host and rewrite the log past the triggers.
pub async fn logs_in_as_superuser(database_url: &str) -> Result<bool, StoreError> {
    let (client, connection) = tokio_postgres::connect(database_url, NoTls).await?;
    let connection = tokio::spawn(connection);
    let superuser: bool = client
        .query_one(
            "SELECT rolsuper FROM pg_roles WHERE rolname = session_user",
            &[],
        )
        .await?
        .get(0);
    drop(client);
    let _ = connection.await;
    Ok(superuser)
}

/// Applies the migrations up to `version` and no further, as the owner:
/// how a test makes a database as an older build left it, to watch a newer
/// migration bring its rows forward.
#[cfg(feature = "testing")]
pub(crate) async fn migrate_up_to(database_url: &str, version: i32) -> Result<(), StoreError> {
    let (mut client, connection) = tokio_postgres::connect(database_url, NoTls).await?;
    let connection = tokio::spawn(connection);
    let outcome = embedded::migrations::runner()
        .set_target(refinery::Target::Version(version))
        .run_async(&mut client)
        .await
        .map(|_| ())
        .map_err(|e| StoreError::Migration(e.to_string()));
    drop(client);
    let _ = connection.await;
    outcome
}

/// Applies the SQL migrations in `migrations/` that are not yet applied.
/// Runs on its own connection as the connecting user: the owner (the private
/// cluster's `owner_url`, in umpire-pgcluster), never the
/// service role, which may not create anything. Under an advisory lock so
/// two starting services do not race.
pub async fn migrate(database_url: &str) -> Result<(), StoreError> {
    let (mut client, connection) = tokio_postgres::connect(database_url, NoTls).await?;
    let connection = tokio::spawn(connection);
    let may_migrate: bool = client
        .query_one("SELECT has_schema_privilege('public', 'CREATE')", &[])
        .await?
        .get(0);
    if !may_migrate {
        // The service's own role (`umpire_app`) may not change the schema:
        // the owner ran `umpire migrate`; check that it is current.
        let newest = embedded::migrations::runner()
            .get_migrations()
            .iter()
            .map(|migration| migration.version())
            .max()
            .unwrap_or(0);
        let applied: Option<i32> = client
            .query_one("SELECT max(version) FROM refinery_schema_history", &[])
            .await
            .map_err(|e| {
                StoreError::Migration(format!(
                    "this role may not migrate and cannot read which migrations ran ({e}): \
                     run `umpire migrate` with the database owner's URL"
                ))
            })?
            .get(0);
        drop(client);
        let _ = connection.await;
        return match applied {
            Some(version) if version >= newest => Ok(()),
            applied => Err(StoreError::Migration(format!(
                "the schema is at migration {}, this build needs {newest}, and this role may \
                 not migrate: run `umpire migrate` with the database owner's URL",
                applied.unwrap_or(0)
            ))),
        };
    }
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

//! A streaming standby of a private cluster: PostgreSQL's own replication
//! (`pg_basebackup -R`, a copy of the data directory that then follows the
//! primary's WAL), for the tests of reads served by standbys and for trying
//! the service with one on a laptop. A production standby is made the same
//! way by whoever runs the database; the service only needs its URL.

use std::path::Path;
use std::time::Duration;

use super::{
    beside_pg_ctl, io_error, write_password_file, ClusterError, Durability, PrivateCluster,
    SECURE_HBA_REPLICATING,
};

/// How long the primary is given to load a `pg_hba.conf` that allows the
/// owner to replicate (a reload only signals the server).
const HBA_RELOAD_WAIT: Duration = Duration::from_secs(20);

impl PrivateCluster {
    /// Makes (unless `data_dir` already holds one) and starts a streaming
    /// standby of this cluster under `data_dir`, with the same roles and
    /// passwords, listening on its own socket there. It is read-only and
    /// replays whatever the primary commits; `pg_wal_replay_pause()` as the
    /// owner holds it back.
    pub fn start_standby(
        &self,
        data_dir: &Path,
        durability: Durability,
    ) -> Result<PrivateCluster, ClusterError> {
        self.allow_replication()?;
        let mut standby = PrivateCluster::prepare(data_dir)?;
        standby.passwords = self.passwords.clone();
        if !standby.pgdata.join("PG_VERSION").is_file() {
            self.base_backup_into(&standby)?;
        }
        write_password_file(&standby.password_file(), &standby.passwords)?;
        standby.init_and_run(durability)?;
        Ok(standby)
    }

    /// Copies this cluster into `standby`'s data directory with
    /// `pg_basebackup -R`, which also writes the settings that make it a
    /// standby of this one. The owner's password goes in the environment
    /// (never the arguments, which every local account can read); libpq
    /// keeps it in the standby's `primary_conninfo`, inside its data
    /// directory, closed to everyone else.
    fn base_backup_into(&self, standby: &PrivateCluster) -> Result<(), ClusterError> {
        let mut args = vec![
            "-D".to_string(),
            standby.pgdata.display().to_string(),
            "-R".into(),
            "-X".into(),
            "stream".into(),
            "-c".into(),
            "fast".into(),
            "-w".into(),
        ];
        args.extend(self.as_owner());
        let started = std::time::Instant::now();
        loop {
            let output = standby
                .command("pg_basebackup", &args)
                .env("PGPASSWORD", &self.passwords.owner.0)
                .env("PGPASSFILE", "/dev/null")
                .output()
                .map_err(io_error(&beside_pg_ctl(&self.bin_dir, "pg_basebackup")))?;
            if output.status.success() {
                return Ok(());
            }
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            )
            .replace(&self.passwords.owner.0, "[redacted]");
            // Until the reload is seen, the old pg_hba.conf refuses the
            // replication connection: try again.
            if text.contains("pg_hba.conf") && started.elapsed() < HBA_RELOAD_WAIT {
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
            return Err(ClusterError::CommandFailed {
                command: "pg_basebackup".into(),
                output: text,
            });
        }
    }

    /// Lets the owner open replication connections (by its password, on
    /// the cluster's private socket only).
    fn allow_replication(&self) -> Result<(), ClusterError> {
        let hba = self.pgdata.join("pg_hba.conf");
        if std::fs::read_to_string(&hba).is_ok_and(|text| text == SECURE_HBA_REPLICATING) {
            return Ok(());
        }
        self.install_hba(SECURE_HBA_REPLICATING)
    }
}

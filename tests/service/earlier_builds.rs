//! Archives exported by earlier builds import into today's store and audit
//! clean from it, with every hash kept (issue 35: how an append encodes its
//! events changed; what it records may not).

use umpire_archive::Archive;
use umpire_domain::record::verify_chain;
use umpire_service::archives::{export_game, import_archive};
use umpire_storage::testing::patient_pool;
use umpire_storage::EventStore;

use crate::archive_support::registry;

/// See `tests/archive/earlier_builds.rs`, which checks the same archives
/// without a database.
const BEFORE_ISSUE_35: &str = include_str!("../data/archives/before-issue-35.jsonl");

/// Given the archives the build before issue 35 exported, when each is
/// imported into a fresh store, then it exports again with the same events,
/// hashes and refusals, its stored chain verifies, and the audit of what
/// was stored finds every action re-decided to the log.
#[tokio::test]
async fn archives_exported_before_the_encoding_changed_import_and_audit_clean() {
    let url = umpire_storage::testing::fresh_database_url().await;
    let store = EventStore::new(patient_pool(&url, 4));
    let registry = registry();
    let archives: Vec<Archive> = BEFORE_ISSUE_35
        .lines()
        .map(|line| Archive::from_json(line).expect("an archive"))
        .collect();
    assert_eq!(archives.len(), 8);
    for archive in archives {
        let name = format!("{} {}", archive.game, archive.game_id);
        import_archive(&store, &registry, archive.clone())
            .await
            .unwrap_or_else(|error| panic!("{name}: refused: {error:?}"));
        let exported = export_game(&store, archive.game_id).await.unwrap();
        assert_eq!(exported.events, archive.events, "{name}: events and hashes");
        assert_eq!(exported.rejections, archive.rejections, "{name}: refusals");
        let stored = store
            .read_events(archive.game_id, 0, None, None)
            .await
            .unwrap();
        verify_chain(&archive.game_id.to_string(), &stored)
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        let report = umpire_archive::audit(&registry, &exported).expect("auditable");
        assert!(
            report.closing.valid && report.closing.disputed_rejections == 0,
            "{name}: {:?}",
            report.closing.first_failure
        );
    }
}

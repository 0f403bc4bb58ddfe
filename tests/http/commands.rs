//! The `umpire` archive commands against real PostgreSQL.

use umpire_api::commands::ScoreCommand;
use umpire_archive::score::parse_csv_rows;
use umpire_archive::{Archive, OutputFormat, ScoreRow};
use umpire_service::archives::import_archive;
use umpire_storage::{connect, EventStore};

use crate::archive_support::{registry, simulated, GAMES};

fn without_source(mut rows: Vec<ScoreRow>) -> Vec<ScoreRow> {
    for row in &mut rows {
        row.source.clear();
    }
    rows.sort_by(|a, b| a.game_id.cmp(&b.game_id));
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scoring_the_database_matches_scoring_the_exported_files() {
    let url = umpire_storage::testing::fresh_database_url().await;
    let store = EventStore::new(connect(&url, 4).expect("pool"));
    let registry = registry();
    for (index, game) in GAMES.iter().cycle().take(24).enumerate() {
        import_archive(&store, &registry, &simulated(game, 100 + index as u64))
            .await
            .unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let exported = dir.path().join("all.jsonl");
    umpire_api::commands::export(&url, &[], true, Some(&exported))
        .await
        .unwrap();
    let from_db = dir.path().join("db.csv");
    let from_files = dir.path().join("files.csv");
    for (database, out) in [(Some(url.clone()), &from_db), (None, &from_files)] {
        umpire_api::commands::score(ScoreCommand {
            inputs: vec![exported.display().to_string()],
            database,
            format: OutputFormat::Csv,
            finished_only: false,
            threads: None,
            out: Some(out.clone()),
        })
        .await
        .unwrap();
    }
    let db_rows = parse_csv_rows(&std::fs::read_to_string(&from_db).unwrap()).unwrap();
    let file_rows = parse_csv_rows(&std::fs::read_to_string(&from_files).unwrap()).unwrap();
    assert_eq!(db_rows.len(), 24);
    assert!(db_rows.iter().all(|r| r.error.is_none()), "{db_rows:#?}");
    assert_eq!(without_source(db_rows), without_source(file_rows));
    // And every exported archive re-validates.
    for line in std::fs::read_to_string(&exported).unwrap().lines() {
        let archive = Archive::from_json(line).unwrap();
        assert!(umpire_archive::replay(&registry, &archive, |_| {})
            .unwrap()
            .is_valid());
    }
}

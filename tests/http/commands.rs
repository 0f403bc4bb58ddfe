//! The `umpire` archive commands against real PostgreSQL.

use serde_json::{json, Value};
use umpire_api::commands::ScoreCommand;
use umpire_archive::score::parse_csv_rows;
use umpire_archive::{Archive, OutputFormat, ScoreRow};
use umpire_service::archives::import_archive;
use umpire_storage::testing::patient_pool;
use umpire_storage::EventStore;

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
    let store = EventStore::new(patient_pool(&url, 4));
    let registry = registry();
    for (index, game) in GAMES.iter().cycle().take(24).enumerate() {
        import_archive(&store, &registry, simulated(game, 100 + index as u64))
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
            chain: umpire_archive::ChainCheck::Verify,
            threads: None,
            out: Some(out.clone()),
            progress: false,
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

/// Runs the `umpire` binary with `args` and no database configured but
/// what `env` gives; its exit code, standard output and standard error.
pub(crate) fn umpire(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_umpire"));
    command
        .args(args)
        .env_remove("DATABASE_URL")
        .env_remove("UMPIRE_DATA_DIR")
        .env("UMPIRE_LOG", "info");
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("run umpire");
    (
        output.status.code().expect("an exit code"),
        String::from_utf8(output.stdout).expect("UTF-8 output"),
        String::from_utf8(output.stderr).expect("UTF-8 errors"),
    )
}

#[test]
fn a_missing_input_is_named_and_nothing_is_written() {
    let (code, out, err) = umpire(&["score", "no-such-file.jsonl"], &[]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out, "", "no header before the failure");
    assert!(err.contains("no-such-file.jsonl"), "{err}");
}

#[test]
fn score_writes_only_rows_to_standard_output_and_exits_3_when_a_row_failed() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.jsonl");
    let (code, _, err) = umpire(
        &[
            "simulate",
            "--game",
            "arboretum",
            "--count",
            "2",
            "--out",
            games.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = umpire(&["score", games.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(parse_csv_rows(&out).unwrap().len(), 2);
    let mut text = std::fs::read_to_string(&games).unwrap();
    text.push_str("{\"not\": \"an archive\"}\n");
    std::fs::write(&games, text).unwrap();
    let (code, out, err) = umpire(&["score", games.to_str().unwrap()], &[]);
    assert_eq!(code, 3, "some rows failed: {err}");
    let rows = parse_csv_rows(&out).expect("standard output is CSV and nothing else");
    assert_eq!(rows.len(), 3);
    assert_eq!(rows.iter().filter(|row| row.error.is_some()).count(), 1);
    assert!(err.contains("3 games (1 error)"), "{err}");
}

#[test]
fn commands_that_only_read_never_create_a_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("nothing-here");
    let game = uuid::Uuid::new_v4().to_string();
    for args in [
        vec!["audit", game.as_str()],
        vec!["what-if", game.as_str(), "--options", "{}"],
        vec!["export", "--all"],
        vec!["score", "--db"],
    ] {
        let (code, out, err) = umpire(&args, &[("UMPIRE_DATA_DIR", data_dir.to_str().unwrap())]);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert_eq!(out, "", "{args:?}");
        assert!(
            err.contains(data_dir.to_str().unwrap()) && err.contains("DATABASE_URL"),
            "{args:?} says where it looked and what to set: {err}"
        );
        assert!(!data_dir.join("pgdata").exists(), "{args:?} made a cluster");
    }
}

#[test]
fn export_needs_a_game_or_all() {
    // A usage error, as clap reports one (issue 46).
    let (code, out, err) = umpire(&["export"], &[]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "");
    assert!(err.contains("--all"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exported_and_audited_games_on_standard_output_are_valid_json_and_logs_are_not_there() {
    let database = umpire_storage::testing::fresh_database().await;
    let url = database.owner_url.as_str();
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.jsonl");
    let archives: Vec<String> = (0..2)
        .map(|index| simulated("treeblox", 40 + index).to_json_line())
        .collect();
    std::fs::write(&games, archives.join("\n") + "\n").unwrap();
    let env = [("DATABASE_URL", url)];
    let (code, out, err) = umpire(&["import", games.to_str().unwrap()], &env);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 2, "one line per game: {out}");
    assert!(err.contains("INFO"), "logs go to standard error: {err}");
    let (code, out, err) = umpire(&["export", "--all"], &env);
    assert_eq!(code, 0, "{err}");
    let exported: Vec<Archive> = out
        .lines()
        .map(|line| Archive::from_json(line).expect("every line an archive"))
        .collect();
    assert_eq!(exported.len(), 2);
    let game = exported[0].game_id.to_string();
    let (code, out, err) = umpire(&["audit", &game], &env);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("the report is JSON");
    assert_eq!(report["valid"], true);
    // A file of JSON Lines is audited game by game.
    let (code, out, err) = umpire(&["audit", "--file", games.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 2);
    // What-if takes one archive, and says so.
    let (code, _, err) = umpire(
        &[
            "what-if",
            "--file",
            games.to_str().unwrap(),
            "--options",
            "{}",
        ],
        &[],
    );
    assert_eq!(code, 1);
    assert!(err.contains("holds 2 archives"), "{err}");
}

/// `umpire import` validates on every core and stores games a batch at a
/// time, with the guarantees of one at a time: each valid game is stored
/// whole, exactly as recorded (its export is the archive it came from); a
/// game that does not replay is one `refused` line naming its failing event
/// and the rest go on; a game already stored (or twice in the input) is
/// refused; exit status 3 when anything was refused.
#[tokio::test]
async fn import_stores_every_valid_game_as_recorded_and_refuses_the_rest_one_line_each() {
    let url = umpire_storage::testing::fresh_database_url().await;
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.jsonl");
    let (code, _, err) = umpire(
        &[
            "simulate",
            "--game",
            "all",
            "--count",
            "80",
            "--out",
            games.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&games).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 320);
    // Line 8: a payload changed after the fact (its hash no longer holds).
    let mut broken: Value = serde_json::from_str(&lines[7]).unwrap();
    broken["events"][2]["payload"]["forged"] = json!(true);
    lines[7] = broken.to_string();
    // The last line: the first game again.
    lines.push(lines[0].clone());
    std::fs::write(&games, lines.join("\n") + "\n").unwrap();

    let (code, out, err) = umpire(
        &["import", games.to_str().unwrap()],
        &[("DATABASE_URL", &url)],
    );
    assert_eq!(code, 3, "something was refused: {err}");
    let answers: Vec<Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect();
    assert_eq!(answers.len(), 321, "one line per game");
    let refused: Vec<&Value> = answers
        .iter()
        .filter(|a| a.get("refused").is_some())
        .collect();
    assert_eq!(refused.len(), 2, "{refused:?}");
    let source = |line: usize| format!("{}:{line}", games.display());
    let forged = refused
        .iter()
        .find(|a| a["source"] == source(8))
        .expect("line 8 refused");
    assert_eq!(forged["refused"]["details"]["seq"], 3, "{forged}");
    let again = refused
        .iter()
        .find(|a| a["source"] == source(321))
        .expect("the repeat refused");
    assert_eq!(again["refused"]["code"], "game_already_exists");
    assert!(err.contains("319 imported, 2 refused"), "{err}");

    // Each stored game exports as the very archive it was imported from.
    let store = EventStore::new(patient_pool(&url, 2));
    for line in [&lines[0], &lines[150], &lines[319]] {
        let archive: Archive = serde_json::from_str(line).unwrap();
        let exported = umpire_service::archives::export_game(&store, archive.game_id)
            .await
            .unwrap();
        assert_eq!(exported.events, archive.events);
        assert_eq!(exported.rejections.len(), archive.rejections.len());
    }

    // Importing the same file again stores nothing more.
    let (code, out, _) = umpire(
        &["import", games.to_str().unwrap()],
        &[("DATABASE_URL", &url)],
    );
    assert_eq!(code, 3);
    assert_eq!(out.matches("\"imported\"").count(), 0, "{out}");
}

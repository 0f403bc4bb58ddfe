//! The `umpire` binary as cargo and rg users expect it (issue 31): quiet by
//! default (data on standard output, one summary line on standard error),
//! `-v` and `-q`, shell completions, `--json` summaries, one clear error for
//! an input that is not archives, counts in good grammar, and a data
//! directory whose path holds a space. Every test runs the real binary.

use std::process::Stdio;

use serde_json::Value;
use umpire_archive::score::parse_csv_rows;

use crate::archive_support::simulated;
use crate::cli_bounds::{create_game, finish, games_file, umpire_command, Finished, Serving};

/// Runs `umpire` with `args`, `env`, and no `UMPIRE_LOG`: the logging a
/// user gets without asking.
fn run_plain(args: &[&str], env: &[(&str, &str)]) -> Finished {
    let mut command = umpire_command(args);
    command.env_remove("UMPIRE_LOG");
    for (name, value) in env {
        command.env(name, value);
    }
    finish(command.spawn().expect("run umpire"), &args.join(" "))
}

/// `count` short archives of one game as JSON Lines in `dir`.
fn archives_file(dir: &std::path::Path, count: u64) -> String {
    let path = dir.join("games.jsonl");
    let lines: Vec<String> = (0..count)
        .map(|index| simulated("treeblox", 300 + index).to_json_line())
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path.to_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_default_level_a_command_writes_its_data_and_one_summary_line_and_no_notice() {
    let url = umpire_storage::testing::fresh_database_url().await;
    let dir = tempfile::tempdir().unwrap();
    let games = archives_file(dir.path(), 2);
    let database = [("DATABASE_URL", url.as_str())];
    // Twice: the second run finds refinery's table already there, which
    // PostgreSQL answers with a NOTICE.
    let finished = tokio::task::block_in_place(|| {
        (
            run_plain(&["import", &games], &database),
            run_plain(&["import", &games], &database),
        )
    });
    let (first, again) = finished;
    assert_eq!(first.status.code(), Some(0), "{}", first.stderr);
    assert_eq!(first.stdout.lines().count(), 2, "{}", first.stdout);
    assert_eq!(
        first.stderr, "umpire import: 2 imported, 0 refused\n",
        "only the summary"
    );
    assert_eq!(again.status.code(), Some(3), "{}", again.stderr);
    assert!(!again.stderr.contains("NOTICE"), "{}", again.stderr);
    assert_eq!(again.stderr, "umpire import: 0 imported, 2 refused\n");

    let (verbose, quiet) = tokio::task::block_in_place(|| {
        (
            run_plain(&["-v", "import", &games], &database),
            run_plain(&["import", "-q", &games], &database),
        )
    });
    assert!(
        verbose.stderr.contains(" INFO ") && verbose.stderr.contains("umpire_api"),
        "-v says what it does: {}",
        verbose.stderr
    );
    assert!(!verbose.stderr.contains("NOTICE"), "{}", verbose.stderr);
    assert_eq!(quiet.status.code(), Some(3));
    assert_eq!(quiet.stderr, "", "-q leaves out the summary");
    assert_eq!(quiet.stdout.lines().count(), 2, "and never the data");
}

#[test]
fn completions_are_printed_for_bash_zsh_and_fish() {
    for (shell, marker) in [
        ("bash", "_umpire()"),
        ("zsh", "#compdef umpire"),
        ("fish", "complete -c umpire"),
    ] {
        let finished = run_plain(&["completions", shell], &[]);
        assert_eq!(
            finished.status.code(),
            Some(0),
            "{shell}: {}",
            finished.stderr
        );
        assert!(
            finished.stdout.contains(marker),
            "{shell}: {}",
            finished.stdout
        );
        for command in ["score", "import", "completions"] {
            assert!(
                finished.stdout.contains(command),
                "{shell} completes {command}"
            );
        }
        assert_eq!(finished.stderr, "");
    }
    let finished = run_plain(&["completions", "tcsh"], &[]);
    assert_eq!(
        finished.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

#[test]
fn score_counts_in_good_grammar_and_prints_its_summary_as_json_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.jsonl");
    std::fs::write(&one, "{\"not\": \"an archive\"}\n").unwrap();
    let finished = run_plain(&["score", one.to_str().unwrap()], &[]);
    assert_eq!(finished.status.code(), Some(3), "{}", finished.stderr);
    assert!(
        finished
            .stderr
            .starts_with("umpire score: 1 game (1 error), "),
        "{}",
        finished.stderr
    );
    let games = archives_file(dir.path(), 2);
    let finished = run_plain(&["score", &games], &[]);
    assert_eq!(finished.status.code(), Some(0), "{}", finished.stderr);
    assert!(
        finished
            .stderr
            .starts_with("umpire score: 2 games (0 errors), "),
        "{}",
        finished.stderr
    );
    let finished = run_plain(&["score", "--json", &games], &[]);
    assert_eq!(finished.status.code(), Some(0), "{}", finished.stderr);
    let summary: Value = serde_json::from_str(finished.stderr.trim_end())
        .unwrap_or_else(|e| panic!("{e}: {}", finished.stderr));
    assert_eq!(summary["games"], 2);
    assert_eq!(summary["errors"], 0);
    assert!(summary["bytes"].as_u64().unwrap() > 0);
    assert!(summary["seconds"].is_number());
    assert_eq!(parse_csv_rows(&finished.stdout).unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_prints_its_summary_as_json_when_asked() {
    let url = umpire_storage::testing::fresh_database_url().await;
    let dir = tempfile::tempdir().unwrap();
    let games = archives_file(dir.path(), 3);
    let finished = tokio::task::block_in_place(|| {
        run_plain(&["import", "--json", &games], &[("DATABASE_URL", &url)])
    });
    assert_eq!(finished.status.code(), Some(0), "{}", finished.stderr);
    let summary: Value = serde_json::from_str(finished.stderr.trim_end())
        .unwrap_or_else(|e| panic!("{e}: {}", finished.stderr));
    assert_eq!(summary, serde_json::json!({"imported": 3, "refused": 0}));
}

#[test]
fn score_of_a_file_that_is_not_archives_stops_with_one_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let readme = dir.path().join("README.md");
    let text: String = (0..237)
        .map(|line| format!("Line {line} of a README, with `code` and *emphasis*.\n"))
        .collect();
    std::fs::write(&readme, text).unwrap();
    let games = archives_file(dir.path(), 1);
    let readme = readme.to_str().unwrap();
    let finished = run_plain(&["score", "--format", "jsonl", &games, readme], &[]);
    assert_eq!(finished.status.code(), Some(1), "{}", finished.stderr);
    let rows: Vec<&str> = finished.stdout.lines().collect();
    assert_eq!(rows.len(), 1, "the archive before it is scored: {rows:?}");
    assert!(rows[0].contains("games.jsonl:1"), "{rows:?}");
    let errors: Vec<&str> = finished
        .stderr
        .lines()
        .filter(|line| line.starts_with("umpire: "))
        .collect();
    assert_eq!(errors.len(), 1, "{}", finished.stderr);
    assert!(
        errors[0].contains(&format!("{readme}: not archives: lines 1, 2, 3")),
        "{}",
        errors[0]
    );
    // A file with an archive among its first lines is scored, its junk
    // lines one error row each.
    let mixed = dir.path().join("mixed.jsonl");
    let archive = simulated("treeblox", 9).to_json_line();
    std::fs::write(&mixed, format!("# notes\n{archive}\n# more notes\n")).unwrap();
    let finished = run_plain(
        &["score", "--format", "jsonl", mixed.to_str().unwrap()],
        &[],
    );
    assert_eq!(finished.status.code(), Some(3), "{}", finished.stderr);
    assert_eq!(finished.stdout.lines().count(), 3);
}

#[test]
fn a_data_directory_with_a_space_in_its_path_imports_serves_and_stops_its_cluster() {
    // The data directory itself is the temporary directory: as root, the
    // cluster runs as `postgres`, which must reach it.
    let data_dir = tempfile::Builder::new()
        .prefix("umpire data dir ")
        .tempdir()
        .unwrap();
    let data = data_dir.path().to_str().unwrap().to_string();
    assert!(data.contains(' '));
    let inputs = tempfile::tempdir().unwrap();
    let games = inputs.path().join("games.jsonl");
    games_file(&games, 2);
    let finished = run_plain(
        &["import", "--data-dir", &data, games.to_str().unwrap()],
        &[],
    );
    assert_eq!(finished.status.code(), Some(0), "{}", finished.stderr);
    assert_eq!(finished.stdout.lines().count(), 2, "{}", finished.stdout);
    let postmaster = data_dir.path().join("pgdata/postmaster.pid");
    assert!(
        !postmaster.exists(),
        "the cluster import started is stopped"
    );
    // A command that fails after starting the cluster stops it too.
    let finished = run_plain(&["import", "--data-dir", &data, "no-such-file.jsonl"], &[]);
    assert_eq!(finished.status.code(), Some(1), "{}", finished.stderr);
    assert!(
        finished.stderr.contains("no-such-file.jsonl"),
        "{}",
        finished.stderr
    );
    assert!(!postmaster.exists(), "stopped after a failure");

    let mut serving = Serving::spawn(&["--data-dir", &data], &[("UMPIRE_LOG", "info")]);
    let port = serving.wait_until_listening();
    let created = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(create_game(port, None));
    assert_eq!(created, 201);
    let (status, log) = serving.stop();
    assert!(status.success() || status.code() == Some(143), "{log}");
    assert!(!postmaster.exists(), "serve stops its cluster: {log}");

    let mut command = umpire_command(&["export", "--all", "--data-dir", &data]);
    command.stdin(Stdio::null());
    let finished = finish(command.spawn().unwrap(), "export --all");
    assert_eq!(finished.status.code(), Some(0), "{}", finished.stderr);
    assert_eq!(
        finished.stdout.lines().count(),
        3,
        "two imported, one created"
    );
}

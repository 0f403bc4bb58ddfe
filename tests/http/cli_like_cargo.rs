//! The `umpire` binary next to cargo, ripgrep and gh (issue 46): a closed
//! pipe ends a command quietly, every usage error exits 2, `--help` and the
//! shell completions list the values an option takes, `simulate` makes its
//! games on every core and sums up, `score` checks each archive's hash
//! chain unless told to trust it, and `serve` stops on SIGINT or SIGTERM
//! without a warning. Every test runs the real binary.

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use serde_json::Value;
use umpire_archive::score::parse_csv_rows;
use umpire_archive::Archive;

use crate::cli_bounds::{umpire_command, Finished, Serving, GENEROUS};

/// Runs `umpire` with `args`, `env`, and the logging a user gets without
/// asking (no `UMPIRE_LOG`).
fn run_plain(args: &[&str], env: &[(&str, &str)]) -> Finished {
    let mut command = umpire_command(args);
    command.env_remove("UMPIRE_LOG");
    for (name, value) in env {
        command.env(name, value);
    }
    crate::cli_bounds::finish(command.spawn().expect("run umpire"), &args.join(" "))
}

/// Writes `umpire simulate` games into `path`: `count` of each game, at
/// most `max_actions` actions each.
fn simulate_into(path: &Path, game: &str, count: u64, max_actions: u64) {
    let finished = run_plain(
        &[
            "simulate",
            "--game",
            game,
            "--count",
            &count.to_string(),
            "--max-actions",
            &max_actions.to_string(),
            "--seed",
            "46",
            "--out",
            path.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(finished.status.code(), Some(0), "{}", finished.stderr);
}

// ---------------------------------------------------------------------------
// A closed pipe.

/// Runs `umpire args`, reads `keep` bytes of its standard output and closes
/// it, as `umpire … | head -c 600` does; how it ended and its standard
/// error.
fn read_then_close(args: &[&str], keep: usize) -> (ExitStatus, String) {
    let mut command = umpire_command(args);
    command.env_remove("UMPIRE_LOG");
    let mut child = command.spawn().expect("run umpire");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut head = vec![0u8; keep];
    stdout
        .read_exact(&mut head)
        .unwrap_or_else(|e| panic!("{args:?} wrote less than {keep} bytes: {e}"));
    drop(stdout);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > GENEROUS {
            let _ = child.kill();
            panic!("{args:?} still ran {GENEROUS:?} after its output was closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status, errors.join().expect("standard error"))
}

#[test]
fn a_closed_pipe_ends_each_command_quietly_with_the_status_of_sigpipe() {
    let dir = tempfile::tempdir().unwrap();
    // Outputs far larger than a pipe holds (64 KiB), so that each command
    // is still writing when the reader goes.
    let full = dir.path().join("full.jsonl");
    simulate_into(&full, "arboretum", 4, 5_000);
    let small = dir.path().join("small.jsonl");
    simulate_into(&small, "all", 300, 2);
    let (full, small) = (full.to_str().unwrap(), small.to_str().unwrap());
    for args in [
        vec!["audit", "--file", full],
        vec!["score", "--format", "jsonl", small],
        vec!["score", "--trust-chain", small],
        vec!["simulate", "--game", "all", "--count", "200"],
        vec!["openapi"],
    ] {
        let (status, stderr) = read_then_close(&args, 600);
        assert!(
            status.code() == Some(141) || status.code() == Some(0) || status.signal() == Some(13),
            "{args:?}: {status:?}: {stderr}"
        );
        assert_eq!(stderr, "", "{args:?}: no message, no backtrace");
    }
}

// ---------------------------------------------------------------------------
// Usage errors.

#[test]
fn every_usage_error_exits_2_before_anything_is_done() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.jsonl");
    simulate_into(&games, "treeblox", 1, 3);
    let games = games.to_str().unwrap();
    for args in [
        vec![],
        vec!["no-such-command"],
        vec!["audit"],
        vec!["audit", "not-a-uuid"],
        vec!["what-if", "--options", "{}"],
        vec!["what-if", "--file", games],
        vec!["what-if", "--file", games, "--options", "{dm"],
        vec!["export"],
        vec!["score"],
        vec!["score", "--db", games],
        vec!["score", "--format", "xml", games],
        vec!["score", "--threads", "0", games],
        vec!["simulate"],
        vec!["simulate", "--game", "chess"],
        vec!["simulate", "--game", "treeblox", "--options", "{"],
        vec!["simulate", "--game", "treeblox", "--count", "-1"],
        vec!["serve", "--replica-max-lag", "-1"],
        vec!["serve", "--pool-wait", "0"],
        vec!["serve", "--pool-size", "0"],
        vec!["serve", "--workers", "0"],
        vec!["import"],
        vec!["completions", "tcsh"],
        vec!["-v", "-q", "openapi"],
    ] {
        // A database that is never reached: were the command line taken,
        // the command would fail there instead, with status 1.
        let finished = run_plain(
            &args,
            &[("DATABASE_URL", "postgres://nobody@127.0.0.1:1/nothing")],
        );
        assert_eq!(
            finished.status.code(),
            Some(2),
            "{args:?}: {}",
            finished.stderr
        );
        // clap's message (or, for no command at all, the help), never a
        // failure of the command.
        assert!(
            finished.stderr.contains("Usage: umpire") || finished.stderr.contains("--help"),
            "{args:?}: {}",
            finished.stderr
        );
        assert!(
            !finished.stderr.contains("umpire: "),
            "{args:?}: {}",
            finished.stderr
        );
        assert_eq!(finished.stdout, "", "{args:?}");
    }
}

// ---------------------------------------------------------------------------
// The values an option takes, in --help and in the completions.

const GAMES: [&str; 4] = ["arboretum", "draft_cider", "flower_fields", "treeblox"];

#[test]
fn help_lists_the_games_the_formats_and_the_shells() {
    let help = |args: &[&str]| {
        let finished = run_plain(args, &[]);
        assert_eq!(finished.status.code(), Some(0), "{args:?}");
        finished.stdout
    };
    let simulate = help(&["simulate", "--help"]);
    for game in GAMES.iter().chain(&["all"]) {
        assert!(
            simulate.contains(&format!("- {game}")),
            "{game}: {simulate}"
        );
    }
    let score = help(&["score", "--help"]);
    assert!(
        score.contains("- csv:") && score.contains("- jsonl:"),
        "{score}"
    );
    let short = help(&["score", "-h"]);
    assert!(short.contains("[possible values: csv, jsonl]"), "{short}");
    let completions = help(&["completions", "--help"]);
    for shell in ["bash", "zsh", "fish"] {
        assert!(completions.contains(shell), "{completions}");
    }
}

#[test]
fn completions_offer_the_games_and_the_formats_not_file_names() {
    let script = |shell: &str| {
        let finished = run_plain(&["completions", shell], &[]);
        assert_eq!(finished.status.code(), Some(0), "{}", finished.stderr);
        finished.stdout
    };
    let games = GAMES.join(" ");
    let bash = script("bash");
    for (option, values) in [
        ("--game", format!("{games} all")),
        ("--format", "csv jsonl".to_string()),
    ] {
        let case = format!("{option})\n                    COMPREPLY=($(compgen -W \"{values}\"");
        assert!(
            bash.contains(&case),
            "bash completes {option} with {values}"
        );
    }
    let fish = script("fish");
    for (option, values) in [("game", GAMES.to_vec()), ("format", vec!["csv", "jsonl"])] {
        let line = fish
            .lines()
            .find(|line| line.contains(&format!(" -l {option} ")))
            .unwrap_or_else(|| panic!("fish completes --{option}"));
        assert!(
            line.contains("-r -f -a"),
            "fish offers values, not files: {line}"
        );
        // The values follow, one a line.
        let start = fish.find(line).unwrap();
        let rest = &fish[start..];
        for value in values {
            assert!(
                rest.lines()
                    .take(6)
                    .any(|l| l.contains(&format!("{value}\\t"))),
                "fish offers {value} for --{option}"
            );
        }
    }
    let zsh = script("zsh");
    for (option, values) in [
        ("--game", GAMES.to_vec()),
        ("--format", vec!["csv", "jsonl"]),
    ] {
        let start = zsh
            .find(&format!("'{option}=["))
            .unwrap_or_else(|| panic!("zsh completes {option}"));
        let rest = &zsh[start..];
        for value in values {
            assert!(
                rest.lines()
                    .take(6)
                    .any(|l| l.contains(&format!("{value}\\:"))),
                "zsh offers {value} for {option}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// simulate: every core, and a summary.

#[test]
fn simulate_makes_its_games_on_every_core_and_sums_them_up() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("games.jsonl");
    let args = [
        "simulate",
        "--game",
        "all",
        "--count",
        "10",
        "--max-actions",
        "40",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ];
    let mut command = umpire_command(&args);
    command
        .env_remove("UMPIRE_LOG")
        .env_remove("RAYON_NUM_THREADS");
    let finished = crate::cli_bounds::finish(command.spawn().unwrap(), "simulate --json");
    assert_eq!(finished.status.code(), Some(0), "{}", finished.stderr);
    let summary: Value = serde_json::from_str(finished.stderr.trim_end())
        .unwrap_or_else(|e| panic!("{e}: {}", finished.stderr));
    let written = std::fs::read_to_string(&out).unwrap();
    let events: u64 = written
        .lines()
        .map(|line| Archive::from_json(line).unwrap().version())
        .sum();
    assert_eq!(summary["games"], 40);
    assert_eq!(summary["events"], events);
    assert_eq!(summary["bytes"], written.len() as u64);
    assert!(summary["seconds"].as_f64().unwrap() > 0.0);
    let cores = std::thread::available_parallelism().unwrap().get() as u64;
    let threads = summary["threads"].as_u64().unwrap();
    assert!(
        threads >= cores.min(2) && threads <= cores,
        "made on {threads} threads of {cores} cores"
    );

    // One thread writes the very same games, and says so in its line.
    let one = dir.path().join("one.jsonl");
    let mut args = args.to_vec();
    args.retain(|arg| *arg != "--json");
    let last = args.len() - 1;
    args[last] = one.to_str().unwrap();
    let mut command = umpire_command(&args);
    command
        .env_remove("UMPIRE_LOG")
        .env("RAYON_NUM_THREADS", "1");
    let finished = crate::cli_bounds::finish(command.spawn().unwrap(), "simulate, 1 thread");
    assert_eq!(finished.status.code(), Some(0), "{}", finished.stderr);
    assert!(
        finished
            .stderr
            .starts_with(&format!("umpire simulate: 40 games, {events} events, ")),
        "{}",
        finished.stderr
    );
    assert!(
        finished.stderr.contains(" on 1 thread: "),
        "{}",
        finished.stderr
    );
    assert_eq!(finished.stderr.lines().count(), 1, "{}", finished.stderr);
    assert_eq!(std::fs::read_to_string(&one).unwrap(), written);

    let quiet = run_plain(
        &["simulate", "--game", "treeblox", "-q", "--max-actions", "3"],
        &[],
    );
    assert_eq!(quiet.status.code(), Some(0));
    assert_eq!(quiet.stderr, "", "-q leaves the summary out");
    assert_eq!(quiet.stdout.lines().count(), 1);
}

// ---------------------------------------------------------------------------
// score: verified archives.

/// Three treeblox games as JSON Lines, the second's result forged: its
/// winner changed in the `game_ended` payload, nothing else.
fn with_a_forged_result(dir: &Path) -> (String, Archive) {
    let games = dir.join("games.jsonl");
    simulate_into(&games, "treeblox", 3, 5_000);
    let mut lines: Vec<String> = std::fs::read_to_string(&games)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let mut forged = Archive::from_json(&lines[1]).unwrap();
    let ended = forged.events.last_mut().unwrap();
    assert_eq!(ended.event_type, "game_ended");
    let winner = match ended.payload["winner"].as_str() {
        Some("dark") => "light",
        _ => "dark",
    };
    ended.payload["winner"] = winner.into();
    lines[1] = forged.to_json_line();
    let path = dir.join("forged.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    (path.to_str().unwrap().to_string(), forged)
}

#[test]
fn score_checks_each_hash_chain_and_a_forged_result_is_an_error_row_unless_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let (path, forged) = with_a_forged_result(dir.path());
    let finished = run_plain(&["score", &path], &[]);
    assert_eq!(finished.status.code(), Some(3), "{}", finished.stderr);
    assert!(
        finished
            .stderr
            .starts_with("umpire score: 3 games (1 error), "),
        "{}",
        finished.stderr
    );
    let rows = parse_csv_rows(&finished.stdout).unwrap();
    assert_eq!(rows.len(), 3);
    assert!(
        rows[0].error.is_none() && rows[2].error.is_none(),
        "{rows:#?}"
    );
    let error = rows[1]
        .error
        .as_deref()
        .expect("the forged game is an error row");
    assert_eq!(rows[1].game_id, forged.game_id.to_string());
    assert_eq!(rows[1].source, format!("{path}:2"));
    // The CSV's `code` column: what `POST /v1/scores` answers for it too.
    assert_eq!(rows[1].code.as_deref(), Some("archive_hash_mismatch"));
    assert!(
        error.contains("hash chain") && error.contains("hash_mismatch"),
        "{error}"
    );
    assert!(
        error.contains(&format!("event {}", forged.version())),
        "names the event changed: {error}"
    );
    assert!(rows[1].winners.is_empty(), "nothing scored from it");

    // Trusted, the same file is scored as it stands, forgery and all.
    let trusted = run_plain(&["score", "--trust-chain", &path], &[]);
    assert_eq!(trusted.status.code(), Some(0), "{}", trusted.stderr);
    let trusted_rows = parse_csv_rows(&trusted.stdout).unwrap();
    assert!(trusted_rows.iter().all(|row| row.error.is_none()));
    assert_eq!(trusted_rows[0], rows[0]);
    assert_eq!(trusted_rows[2], rows[2]);
}

// ---------------------------------------------------------------------------
// serve: a clean stop.

#[test]
fn serve_stops_on_sigint_and_sigterm_without_a_warning() {
    // The data directory itself is the temporary directory: as root, the
    // cluster runs as `postgres`, which must reach it.
    let data_dir = tempfile::Builder::new()
        .prefix("umpire-clean-stop")
        .tempdir()
        .unwrap();
    let data = data_dir.path().to_str().unwrap().to_string();
    let token_dir = tempfile::tempdir().unwrap();
    let token_file = token_dir.path().join("admin-token");
    std::fs::write(&token_file, "clean-stop\n").unwrap();
    // The owner's alone, as serve requires of a token file.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let token_file = token_file.to_str().unwrap().to_string();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for signal in ["INT", "TERM"] {
        let mut serving = Serving::spawn(
            &["--data-dir", &data, "--admin-token-file", &token_file],
            // What a user sees at the default level.
            &[("UMPIRE_LOG", "info")],
        );
        let port = serving.wait_until_listening();
        // A game, and a live stream of it: the timekeeper looks at clocks,
        // the listener holds its connection, the pool has connections open,
        // and a request is in flight that would never end by itself.
        let stream = runtime.block_on(async {
            let client = reqwest::Client::new();
            let created: Value = client
                .post(format!("http://127.0.0.1:{port}/v1/games"))
                .bearer_auth("clean-stop")
                .json(&serde_json::json!({"game": "treeblox"}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let id = created["id"].as_str().expect("a game id").to_string();
            let stream = client
                .get(format!("http://127.0.0.1:{port}/v1/games/{id}/stream"))
                .send()
                .await
                .unwrap();
            assert_eq!(stream.status(), 200);
            // Let the timekeeper look a few times.
            tokio::time::sleep(Duration::from_secs(1)).await;
            stream
        });
        let signalled = Instant::now();
        serving.signal(signal);
        // The stream is ended by the server, with its closing message,
        // rather than left to hold the stop until its timeout (30 s).
        let mut stream = stream;
        let body = runtime.block_on(async {
            let mut body = String::new();
            while let Ok(Ok(Some(chunk))) = tokio::time::timeout(GENEROUS, stream.chunk()).await {
                body.push_str(&String::from_utf8_lossy(&chunk));
            }
            body
        });
        let (status, log) = serving.wait_for_exit();
        let took = signalled.elapsed();
        assert!(
            body.contains("event: end\ndata: {\"reason\":\"stopping\""),
            "SIG{signal}: {body}\n{log}"
        );
        assert!(
            took < Duration::from_secs(25),
            "SIG{signal}: stopping took {took:?}, as long as the server's wait for \
             requests in flight: {log}"
        );
        assert!(status.success(), "SIG{signal}: {status:?}\n{log}");
        let loud: Vec<&str> = log
            .lines()
            .filter(|line| line.contains(" WARN ") || line.contains(" ERROR "))
            .collect();
        assert!(loud.is_empty(), "SIG{signal}: {loud:#?}\n{log}");
        assert!(
            log.contains("stopping the private PostgreSQL cluster"),
            "SIG{signal}: {log}"
        );
        assert!(
            !data_dir.path().join("pgdata/postmaster.pid").exists(),
            "SIG{signal}: the cluster is stopped: {log}"
        );
    }
}

//! The `umpire` binary bounded like the service (issue 30): inputs read
//! linearly within the HTTP archive limit, directory walks that neither
//! follow links nor open anything but regular files, and `serve`'s operator
//! safeguards (the admin token, the data directory, signals during startup).
//! Every test runs the real binary; a test that would hang on the old code
//! waits a generous, bounded time and then fails.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use umpire_archive::inputs::{read_lines, MAX_ARCHIVE_BYTES};

/// Long enough for a loaded two-core machine; a hang on the old code fails
/// here instead of never ending.
pub(crate) const GENEROUS: Duration = Duration::from_secs(180);

pub(crate) fn umpire_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_umpire"));
    command
        .args(args)
        .env_remove("DATABASE_URL")
        .env_remove("UMPIRE_DATA_DIR")
        .env_remove("UMPIRE_ADMIN_TOKEN")
        .env_remove("UMPIRE_ADMIN_TOKEN_FILE")
        // `serve`'s pool as patient as the tests' own (a busy machine).
        .env(
            "UMPIRE_POOL_WAIT",
            umpire_storage::testing::PATIENT.wait.as_secs().to_string(),
        )
        .env("UMPIRE_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Output of a finished run.
pub(crate) struct Finished {
    pub(crate) status: ExitStatus,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Waits for `child` at most [`GENEROUS`], killing it (and failing) if it
/// runs longer; its output is collected on threads so that a full pipe
/// never blocks it.
pub(crate) fn finish(mut child: Child, what: &str) -> Finished {
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let read_all = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = pipe.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = read_all(Box::new(stdout));
    let stderr = read_all(Box::new(stderr));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > GENEROUS {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} still ran after {GENEROUS:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Finished {
        status,
        stdout: stdout.join().expect("stdout"),
        stderr: stderr.join().expect("stderr"),
    }
}

pub(crate) fn run(args: &[&str], env: &[(&str, &str)]) -> Finished {
    let mut command = umpire_command(args);
    for (name, value) in env {
        command.env(name, value);
    }
    finish(command.spawn().expect("run umpire"), &args.join(" "))
}

/// A few short simulated archives as JSON Lines.
pub(crate) fn games_file(path: &Path, count: u32) {
    let finished = run(
        &[
            "simulate",
            "--game",
            "arboretum",
            "--count",
            &count.to_string(),
            "--max-actions",
            "4",
            "--out",
            path.to_str().unwrap(),
        ],
        &[],
    );
    assert!(finished.status.success(), "{}", finished.stderr);
}

// ---------------------------------------------------------------------------
// Lines: linear, and no longer than one archive over HTTP.

/// `read_lines` with a small limit: every line of `text`, by number.
fn lines_of(text: &[u8], max_line_bytes: usize) -> std::io::Result<Vec<(u64, String)>> {
    let mut lines = Vec::new();
    read_lines("test".into(), text, max_line_bytes, &mut |chunk| {
        let text = String::from_utf8(chunk.bytes).unwrap();
        for (offset, line) in text.split('\n').enumerate() {
            if !line.is_empty() {
                lines.push((chunk.first_line + offset as u64, line.to_string()));
            }
        }
        Ok(())
    })?;
    Ok(lines)
}

#[test]
fn a_line_of_exactly_the_limit_is_read_and_one_byte_more_is_refused_naming_its_line() {
    let at_limit = "a".repeat(10);
    let text = format!("x\n{at_limit}\ny");
    assert_eq!(
        lines_of(text.as_bytes(), 10).unwrap(),
        vec![(1, "x".into()), (2, at_limit.clone()), (3, "y".into())]
    );
    for text in [format!("x\n{at_limit}b\ny\n"), format!("x\ny\n{at_limit}b")] {
        let error = lines_of(text.as_bytes(), 10).unwrap_err();
        let line = if text.ends_with('\n') { 2 } else { 3 };
        assert!(
            error
                .to_string()
                .starts_with(&format!("test:{line}: line {line} is longer than 10 bytes")),
            "{text:?}: {error}"
        );
    }
}

#[test]
fn lines_longer_than_a_chunk_are_read_whole_with_their_numbers() {
    let long = "b".repeat(umpire_archive::pipeline::CHUNK_BYTES * 3 + 5);
    let text = format!("first\n{long}\nlast\n");
    let lines = lines_of(text.as_bytes(), MAX_ARCHIVE_BYTES).unwrap();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1], (2, long));
    assert_eq!(lines[2], (3, "last".into()));
}

/// Standard input: two short lines, then zeros that never end.
fn endless_third_line(mut child: Child) -> Child {
    let mut stdin = child.stdin.take().expect("piped stdin");
    std::thread::spawn(move || {
        let zeros = vec![0u8; 1 << 16];
        // Stops when umpire closes the pipe.
        let _ = stdin.write_all(b"{\"not\": \"an archive\"}\n\n");
        while stdin.write_all(&zeros).is_ok() {}
    });
    child
}

#[test]
fn score_of_an_endless_line_on_standard_input_ends_naming_the_line_and_the_limit() {
    let mut command = umpire_command(&["score", "-"]);
    command.stdin(Stdio::piped());
    let child = endless_third_line(command.spawn().expect("run umpire"));
    let finished = finish(child, "umpire score - < endless line");
    assert_eq!(finished.status.code(), Some(1), "{}", finished.stderr);
    assert!(
        finished.stderr.contains(&format!(
            "-:3: line 3 is longer than {MAX_ARCHIVE_BYTES} bytes"
        )),
        "{}",
        finished.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_of_an_endless_line_on_standard_input_ends_naming_the_line() {
    let url = umpire_storage::testing::fresh_database_url().await;
    let mut command = umpire_command(&["import", "-"]);
    command.stdin(Stdio::piped()).env("DATABASE_URL", &url);
    let child = endless_third_line(command.spawn().expect("run umpire"));
    let finished =
        tokio::task::spawn_blocking(move || finish(child, "umpire import - < endless line"))
            .await
            .unwrap();
    assert_eq!(finished.status.code(), Some(1), "{}", finished.stderr);
    assert!(
        finished.stderr.contains(&format!(
            "-:3: line 3 is longer than {MAX_ARCHIVE_BYTES} bytes"
        )),
        "{}",
        finished.stderr
    );
}

#[test]
fn audit_and_what_if_refuse_a_file_longer_than_one_archive_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.json");
    std::fs::write(&big, vec![b' '; MAX_ARCHIVE_BYTES + 1]).unwrap();
    let big = big.to_str().unwrap();
    for args in [
        vec!["audit", "--file", big],
        vec!["what-if", "--file", big, "--options", "{}"],
    ] {
        let finished = run(&args, &[]);
        assert_eq!(finished.status.code(), Some(1), "{args:?}");
        assert!(
            finished.stderr.contains(big)
                && finished
                    .stderr
                    .contains(&format!("longer than {MAX_ARCHIVE_BYTES} bytes")),
            "{args:?}: {}",
            finished.stderr
        );
    }
}

// ---------------------------------------------------------------------------
// Directory walks and file types.

#[test]
fn a_directory_walk_skips_links_so_loops_end_and_nothing_outside_is_read() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let inside = root.path().join("games");
    std::fs::create_dir(&inside).unwrap();
    games_file(&inside.join("season.jsonl"), 2);
    games_file(&outside.path().join("elsewhere.jsonl"), 3);
    for (link, target) in [
        ("a", Path::new(".")),
        ("b", Path::new(".")),
        ("up", Path::new("..")),
        ("outside", outside.path()),
        ("same.jsonl", Path::new("season.jsonl")),
    ] {
        std::os::unix::fs::symlink(target, inside.join(link)).unwrap();
    }
    let root = root.path().to_str().unwrap();
    let finished = run_unlogged(&["score", "--format", "jsonl", root]);
    assert_eq!(finished.status.code(), Some(0), "{}", finished.stderr);
    let rows: Vec<&str> = finished.stdout.lines().collect();
    assert_eq!(rows.len(), 2, "each game once, none from outside: {rows:?}");
    assert!(
        rows.iter().all(|row| row.contains("season.jsonl")),
        "{rows:?}"
    );
    // One warning for the run, counting what was skipped (issue 46: `umpire
    // score /etc` wrote hundreds of lines, one a link) …
    let warnings: Vec<&str> = finished
        .stderr
        .lines()
        .filter(|line| line.contains("WARN"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", finished.stderr);
    assert!(
        warnings[0].contains("skipped 5 symbolic links inside the directories given")
            && warnings[0].contains("-v lists each"),
        "{}",
        warnings[0]
    );
    assert_eq!(
        finished.stderr.lines().count(),
        2,
        "the warning and the summary: {}",
        finished.stderr
    );
    // … and -v names each.
    let verbose = run_unlogged(&["score", "-v", "--format", "jsonl", root]);
    assert_eq!(verbose.status.code(), Some(0), "{}", verbose.stderr);
    for link in ["a", "b", "up", "outside", "same.jsonl"] {
        let path = inside.join(link);
        assert!(
            verbose
                .stderr
                .lines()
                .any(|line| line.contains("skipped: a symbolic link")
                    && line.contains(path.to_str().unwrap())),
            "-v names {link}: {}",
            verbose.stderr
        );
    }
}

/// [`run`] at the level a user gets without asking (no `UMPIRE_LOG`).
fn run_unlogged(args: &[&str]) -> Finished {
    let mut command = umpire_command(args);
    command.env_remove("UMPIRE_LOG");
    finish(command.spawn().expect("run umpire"), &args.join(" "))
}

#[test]
fn fifos_and_devices_are_refused_by_name_unless_read_as_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("queue.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let walked = tempfile::tempdir().unwrap();
    let walked_fifo = walked.path().join("inside.jsonl");
    assert!(Command::new("mkfifo")
        .arg(&walked_fifo)
        .status()
        .unwrap()
        .success());
    for (args, path, kind) in [
        (
            vec!["score", fifo.to_str().unwrap()],
            fifo.clone(),
            "a FIFO",
        ),
        (
            vec!["audit", "--file", fifo.to_str().unwrap()],
            fifo.clone(),
            "a FIFO",
        ),
        (
            vec!["score", "/dev/zero"],
            "/dev/zero".into(),
            "a character device",
        ),
    ] {
        let finished = run(&args, &[]);
        assert_eq!(
            finished.status.code(),
            Some(1),
            "{args:?}: {}",
            finished.stderr
        );
        assert_eq!(finished.stdout, "", "{args:?}: refused before any row");
        assert!(
            finished
                .stderr
                .contains(&format!("{} is {kind}, not a regular file", path.display())),
            "{args:?}: {}",
            finished.stderr
        );
    }
    // Found in a walk, a FIFO is skipped (never opened) and counted in
    // the run's one warning; -v names it.
    let walked_dir = walked.path().to_str().unwrap();
    let finished = run_unlogged(&["score", "-v", walked_dir]);
    assert_eq!(finished.status.code(), Some(0), "{}", finished.stderr);
    assert_eq!(finished.stdout.lines().count(), 1, "the header alone");
    assert!(
        finished.stderr.lines().any(|line| line.contains("WARN")
            && line.contains("skipped 1 FIFO, socket or device inside the directories given")),
        "{}",
        finished.stderr
    );
    assert!(
        finished
            .stderr
            .lines()
            .any(|line| line.contains("a FIFO, not a regular file")
                && line.contains(walked_fifo.to_str().unwrap())),
        "{}",
        finished.stderr
    );
    // The same games through a pipe on standard input are read.
    let games = dir.path().join("games.jsonl");
    games_file(&games, 2);
    let mut command = umpire_command(&["score", "-"]);
    command.stdin(std::fs::File::open(&games).unwrap());
    let finished = finish(command.spawn().unwrap(), "score -");
    assert_eq!(finished.status.code(), Some(0), "{}", finished.stderr);
    assert_eq!(finished.stdout.lines().count(), 3, "a header and two rows");
}

// ---------------------------------------------------------------------------
// Seeds: one range everywhere.

#[test]
fn simulate_writes_only_seeds_that_game_creation_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.jsonl");
    // 4 games × 32: with seeds drawn from all 64 bits, about half would be
    // past the range; the chance that none is, 2^-128.
    let finished = run(
        &[
            "simulate",
            "--game",
            "all",
            "--count",
            "32",
            "--max-actions",
            "1",
            "--out",
            games.to_str().unwrap(),
        ],
        &[],
    );
    assert!(finished.status.success(), "{}", finished.stderr);
    let text = std::fs::read_to_string(&games).unwrap();
    let seeds: Vec<u64> = text
        .lines()
        .map(|line| umpire_archive::Archive::from_json(line).unwrap().seed)
        .collect();
    assert_eq!(seeds.len(), 4 * 32);
    assert!(
        seeds
            .iter()
            .all(|&seed| umpire_domain::rng::is_valid_seed(seed)),
        "{seeds:?}"
    );
}

// ---------------------------------------------------------------------------
// serve: the admin token, the data directory, signals during startup.

/// `umpire serve` running as a child, its standard error read line by line.
pub(crate) struct Serving {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Serving {
    pub(crate) fn spawn(args: &[&str], env: &[(&str, &str)]) -> Serving {
        let mut command = umpire_command(&[&["serve", "--bind", "127.0.0.1:0"], args].concat());
        command.stdout(Stdio::null());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("run umpire serve");
        let stderr = child.stderr.take().expect("piped stderr");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { return };
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        Serving {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Reads standard error until a line contains `text` (which it returns),
    /// or fails when the process ends first or [`GENEROUS`] passes.
    fn wait_for(&mut self, text: &str) -> String {
        let deadline = Instant::now() + GENEROUS;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(text) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "no line with {text:?} from umpire serve; it wrote:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// The port from the "listening on" line.
    pub(crate) fn wait_until_listening(&mut self) -> u16 {
        let line = self.wait_for("listening on http://");
        let port = line
            .split("(port ")
            .nth(1)
            .and_then(|rest| rest.split(')').next())
            .and_then(|port| port.parse().ok());
        port.unwrap_or_else(|| panic!("no port in {line:?}"))
    }

    pub(crate) fn signal(&self, name: &str) {
        let sent = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(sent.success());
    }

    /// Waits for the process to end; its status and every line it wrote.
    pub(crate) fn wait_for_exit(&mut self) -> (ExitStatus, String) {
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            if started.elapsed() > GENEROUS {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "umpire serve still ran after {GENEROUS:?}:\n{}",
                    self.seen.join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
        }
        (status, self.seen.join("\n"))
    }

    pub(crate) fn stop(mut self) -> (ExitStatus, String) {
        self.signal("TERM");
        self.wait_for_exit()
    }
}

/// A test that fails midway leaves no server behind.
impl Drop for Serving {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Creates a game over HTTP with `token` (if any); the status.
pub(crate) async fn create_game(port: u16, token: Option<&str>) -> reqwest::StatusCode {
    let mut request = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{port}/v1/games"))
        .json(&serde_json::json!({"game": "arboretum"}));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.expect("an answer").status()
}

const ARGUMENT_WARNING: &str = "every local account can read it in /proc/";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_token_file_guards_creation_and_only_a_token_in_the_arguments_is_warned_about() {
    let url = umpire_storage::testing::fresh_database_url().await;
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("admin-token");
    std::fs::write(&token_file, "from-the-file\n").unwrap();
    owner_only(&token_file);
    let token_path = token_file.to_str().unwrap().to_string();
    let database = [("DATABASE_URL", url.as_str())];

    let mut serving = Serving::spawn(&["--admin-token-file", &token_path], &database);
    let port = serving.wait_until_listening();
    assert_eq!(create_game(port, None).await, 401);
    assert!(create_game(port, Some("from-the-file."))
        .await
        .is_client_error());
    assert_eq!(create_game(port, Some("from-the-file")).await, 201);
    let (_, log) = serving.stop();
    assert!(!log.contains(ARGUMENT_WARNING), "{log}");

    let mut serving = Serving::spawn(&[], &[database[0], ("UMPIRE_ADMIN_TOKEN", "from-env")]);
    let port = serving.wait_until_listening();
    assert_eq!(create_game(port, Some("from-env")).await, 201);
    let (_, log) = serving.stop();
    assert!(!log.contains(ARGUMENT_WARNING), "{log}");

    let mut serving = Serving::spawn(&["--admin-token", "typed"], &database);
    let port = serving.wait_until_listening();
    assert_eq!(create_game(port, Some("typed")).await, 201);
    let (_, log) = serving.stop();
    assert!(
        log.lines().any(|line| line.contains("WARN")
            && line.contains(ARGUMENT_WARNING)
            && line.contains("--admin-token-file")),
        "{log}"
    );
}

#[test]
fn an_empty_admin_token_file_or_both_ways_at_once_is_refused_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let data = data_dir.to_str().unwrap();
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "\n").unwrap();
    owner_only(&empty);
    // A database that is never reached: were the file accepted, startup
    // would fail there instead, with another message.
    let finished = run(
        &["serve", "--admin-token-file", empty.to_str().unwrap()],
        &[("DATABASE_URL", "postgres://nobody@127.0.0.1:1/nothing")],
    );
    assert_eq!(finished.status.code(), Some(1), "{}", finished.stderr);
    assert!(
        finished.stderr.contains(&format!(
            "the admin token file {} is empty",
            empty.display()
        )),
        "{}",
        finished.stderr
    );
    let finished = run(
        &[
            "serve",
            "--data-dir",
            data,
            "--admin-token",
            "x",
            "--admin-token-file",
            empty.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(finished.status.code(), Some(2), "{}", finished.stderr);
    assert!(
        finished.stderr.contains("cannot be used with"),
        "{}",
        finished.stderr
    );
    assert!(!data_dir.exists(), "nothing was created");
}

fn owner_only(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

/// A token file every local account may read is refused (as ssh refuses
/// such a key), naming the mode and the fix, before anything starts; the
/// same file made the owner's alone is read.
#[test]
fn an_admin_token_file_other_accounts_may_read_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("admin-token");
    std::fs::write(&token, "secret\n").unwrap();
    let never_reached = [("DATABASE_URL", "postgres://nobody@127.0.0.1:1/nothing")];
    for mode in [0o644, 0o604, 0o602] {
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(mode)).unwrap();
        let finished = run(
            &["serve", "--admin-token-file", token.to_str().unwrap()],
            &never_reached,
        );
        assert_eq!(finished.status.code(), Some(1), "{}", finished.stderr);
        assert!(
            finished.stderr.contains(&format!(
                "may be read or written by every local account (mode {mode:o}): `chmod 600` it"
            )),
            "{mode:o}: {}",
            finished.stderr
        );
    }
    owner_only(&token);
    let finished = run(
        &["serve", "--admin-token-file", token.to_str().unwrap()],
        &never_reached,
    );
    assert!(
        !finished.stderr.contains("every local account"),
        "{}",
        finished.stderr
    );
}

#[test]
fn a_data_directory_that_is_a_symbolic_link_is_refused_before_anything_is_made_or_handed_over() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target");
    std::fs::create_dir(&target).unwrap();
    let mode_before = std::fs::metadata(&target).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let dangling = dir.path().join("dangling");
    std::os::unix::fs::symlink(dir.path().join("not-yet"), &dangling).unwrap();
    for data_dir in [
        link.display().to_string(),
        format!("{}/", link.display()),
        dangling.display().to_string(),
    ] {
        for command in ["serve", "migrate"] {
            let finished = run(&[command, "--data-dir", &data_dir], &[]);
            assert_eq!(finished.status.code(), Some(1), "{command} {data_dir}");
            assert!(
                finished
                    .stderr
                    .contains(&format!("the data directory {data_dir} is a symbolic link")),
                "{command} {data_dir}: {}",
                finished.stderr
            );
        }
    }
    assert_eq!(
        std::fs::read_dir(&target).unwrap().count(),
        0,
        "nothing made"
    );
    let mode_after = std::fs::metadata(&target).unwrap();
    use std::os::unix::fs::MetadataExt;
    assert_eq!(
        (mode_after.mode(), mode_after.uid(), mode_after.gid()),
        (mode_before.mode(), mode_before.uid(), mode_before.gid()),
        "the link's target was not handed over"
    );
    assert!(!dir.path().join("not-yet").exists());
}

#[test]
fn sigint_while_the_private_cluster_is_initialised_stops_startup_and_the_cluster() {
    // The data directory itself is the temporary directory: as root, the
    // cluster runs as `postgres`, which must reach it (the testing cluster
    // does the same).
    let data_dir = tempfile::Builder::new()
        .prefix("umpire-sigint")
        .tempdir()
        .unwrap();
    let mut serving = Serving::spawn(&["--data-dir", data_dir.path().to_str().unwrap()], &[]);
    serving.wait_for("initialising it first");
    serving.signal("INT");
    let (status, log) = serving.wait_for_exit();
    assert_eq!(status.code(), Some(130), "{log}");
    assert!(
        log.contains("stopped by SIGINT before the service started"),
        "{log}"
    );
    assert!(!log.contains("listening on"), "nothing served: {log}");
    assert!(
        !data_dir.path().join("pgdata/postmaster.pid").exists(),
        "the cluster it started is stopped: {log}"
    );
}

/// Given `serve` killed with SIGKILL, its private cluster left running with
/// nobody to stop it, when `serve` starts again on that data directory,
/// then it takes the cluster over (and says so), and stops it when it ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_left_running_by_a_killed_serve_is_taken_over_and_stopped_by_the_next() {
    use std::os::unix::process::ExitStatusExt;
    let data_dir = tempfile::Builder::new()
        .prefix("umpire-orphan")
        .tempdir()
        .unwrap();
    let postmaster = data_dir.path().join("pgdata/postmaster.pid");
    let dir = data_dir.path().to_str().unwrap();
    let mut killed = Serving::spawn(&["--data-dir", dir], &[]);
    killed.wait_until_listening();
    killed.signal("KILL");
    let (status, _) = killed.wait_for_exit();
    assert_eq!(status.signal(), Some(9));
    assert!(postmaster.exists(), "SIGKILL leaves the cluster running");

    let mut next = Serving::spawn(&["--data-dir", dir], &[]);
    next.wait_for("taking it over");
    let port = next.wait_until_listening();
    assert_eq!(create_game(port, None).await, 201, "it serves");
    let (status, log) = next.stop();
    assert!(status.success() || status.code() == Some(143), "{log}");
    assert!(
        !postmaster.exists(),
        "the cluster taken over is stopped with the command: {log}"
    );
    assert!(
        !log.contains("did not stop in time"),
        "a stop with nothing in flight is prompt: {log}"
    );
}

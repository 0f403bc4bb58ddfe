//! Reads on PostgreSQL streaming standbys (issue 34), against a real
//! primary and a real standby made by `pg_basebackup -R`, held back on
//! purpose with `pg_wal_replay_pause()`. Where each read was answered is
//! shown by the per-target counters of `/metrics`, never by timing.

use std::time::Duration;

use rand::SeedableRng;
use reqwest::StatusCode;
use serde_json::{json, Value};
use umpire_api::ServiceOptions;
use umpire_service::ReplicaSettings;
use umpire_storage::testing::ReplicatedDatabase;

use crate::support::{Created, TestApp};

/// How long a test waits for a condition the machine's load may delay.
const PATIENCE: Duration = Duration::from_secs(90);

/// Options for an instance reading from `pair`'s standby, skipping it past
/// `max_lag` of replay lag.
fn reading_from_standby(pair: &ReplicatedDatabase, max_lag: Duration) -> ServiceOptions {
    ServiceOptions {
        replicas: Some(ReplicaSettings {
            urls: vec![pair.standby.service_url.clone()],
            pool_size: 4,
            max_lag,
        }),
        ..ServiceOptions::default()
    }
}

/// A primary with its streaming standby, and an instance writing on the
/// primary (reading from it alone).
async fn replicated() -> (ReplicatedDatabase, TestApp) {
    let pair = ReplicatedDatabase::start().await;
    let writer = TestApp::spawn_on(&pair.primary.service_url, ServiceOptions::default()).await;
    (pair, writer)
}

/// Another instance on `writer`'s database that reads from `pair`'s
/// standby, once its probe has found the standby up.
async fn reader_of(pair: &ReplicatedDatabase, writer: &TestApp, max_lag: Duration) -> TestApp {
    let reader = writer
        .another_instance_with(reading_from_standby(pair, max_lag))
        .await;
    until_standby_up_is(&reader, 1.0).await;
    reader
}

/// A bound on lag no test run reaches: the standby is never skipped as
/// lagging.
const NEVER_LAGGING: Duration = Duration::from_secs(24 * 3600);

/// The sum of the `/metrics` series named `name` whose labels include
/// every one of `labels` (`key="value"`); 0 when there is none.
async fn counted(app: &TestApp, name: &str, labels: &[&str]) -> f64 {
    let text = app.get("/metrics", None).await.text().await.unwrap();
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, rest) = series.split_once('{').unwrap_or((series, ""));
            (metric == name && labels.iter().all(|label| rest.contains(label)))
                .then(|| value.parse::<f64>().ok())
                .flatten()
        })
        .sum()
}

async fn reads(app: &TestApp, target: &str) -> f64 {
    counted(
        app,
        "umpire_reads_total",
        &[&format!("target=\"{target}\"")],
    )
    .await
}

async fn skips(app: &TestApp, reason: &str) -> f64 {
    counted(
        app,
        "umpire_standby_skips_total",
        &[&format!("reason=\"{reason}\"")],
    )
    .await
}

/// Waits until the instance's probe finds its standby `up` (1) or not (0).
async fn until_standby_up_is(app: &TestApp, up: f64) {
    let deadline = std::time::Instant::now() + PATIENCE;
    while counted(app, "umpire_standby_up", &["standby=\"standby-1\""]).await != up {
        assert!(
            std::time::Instant::now() < deadline,
            "the standby's probe never found it {}",
            if up == 1.0 { "up" } else { "down" }
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Plays `count` actions of `game` through `app`: the version after them.
async fn play(app: &TestApp, game: &Created, count: usize, seed: u64) -> u64 {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut version = 0;
    for _ in 0..count {
        let accepted = app
            .play_one(game, &mut rng)
            .await
            .expect("the game goes on");
        version = accepted["version"].as_u64().unwrap();
    }
    version
}

async fn json_of(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let response = app.get(path, token).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response.json().await.unwrap()
}

/// Given a standby holding a game at version `held` and paused there, and
/// the primary further on: a read at a version it holds is answered by
/// the standby, one beyond by the primary, and both equal what the
/// primary itself answers.
#[tokio::test(flavor = "multi_thread")]
async fn reads_at_versions_a_standby_holds_go_to_it_and_beyond_to_the_primary() {
    let (pair, writer) = replicated().await;
    let game = writer.create("treeblox", json!(null), 7).await;
    let held = play(&writer, &game, 4, 1).await;
    pair.pause_when_caught_up().await;
    let newest = play(&writer, &game, 3, 2).await;
    assert!(newest > held);

    let reader = reader_of(&pair, &writer, NEVER_LAGGING).await;
    let state_at = |version: u64| format!("/v1/games/{}/state?at={version}", game.id);

    let from_standby = json_of(&reader, &state_at(held), None).await;
    assert_eq!(reads(&reader, "standby-1").await, 1.0);
    assert_eq!(reads(&reader, "primary").await, 0.0);
    assert_eq!(from_standby, json_of(&writer, &state_at(held), None).await);

    let beyond = json_of(&reader, &state_at(newest), None).await;
    assert_eq!(reads(&reader, "primary").await, 1.0, "the standby lacks it");
    assert_eq!(skips(&reader, "behind").await, 1.0);
    assert_eq!(beyond, json_of(&writer, &state_at(newest), None).await);
    assert_eq!(beyond["version"], json!(newest));

    // A past version of a game not in memory is resumed where it is held,
    // from a snapshot or the start, and not kept. Once the instance holds
    // the game's fold (its newest read), versions never change: a past one
    // is answered from memory.
    json_of(&reader, &format!("/v1/games/{}", game.id), None).await;
    let before = reads(&reader, "primary").await;
    json_of(&reader, &state_at(held - 1), None).await;
    assert_eq!(reads(&reader, "memory").await, 1.0);
    assert_eq!(reads(&reader, "primary").await, before);

    // A version no database has yet is refused, as without standbys.
    let response = reader.get(&state_at(newest + 1), None).await;
    crate::support::assert_error(response, StatusCode::BAD_REQUEST, "version_out_of_range").await;
    pair.resume_replay().await;
}

/// Read-your-writes: a client that wrote version N and asks with
/// `min_version=N` sees its write, wherever the read is answered; the
/// standby answers such reads once it holds N; a read without a version
/// always goes to the primary.
#[tokio::test(flavor = "multi_thread")]
async fn a_clients_own_write_is_visible_to_its_next_read() {
    let (pair, primary_only) = replicated().await;
    let game = primary_only.create("treeblox", json!(null), 11).await;
    let first = play(&primary_only, &game, 2, 3).await;
    pair.pause_when_caught_up().await;

    // The client writes through an instance that reads from the paused
    // standby, then reads with the version its write answered.
    let instance = reader_of(&pair, &primary_only, NEVER_LAGGING).await;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
    for _ in 0..3 {
        let accepted = instance.play_one(&game, &mut rng).await.unwrap();
        let written = accepted["version"].as_u64().unwrap();
        assert!(written > first);
        for path in ["state", "score"] {
            let read = json_of(
                &instance,
                &format!("/v1/games/{}/{path}?min_version={written}", game.id),
                None,
            )
            .await;
            assert!(
                read["version"].as_u64().unwrap() >= written,
                "{path} after writing {written}: {read}"
            );
        }
        let newest = json_of(&instance, &format!("/v1/games/{}/state", game.id), None).await;
        assert_eq!(
            newest["version"],
            json!(written),
            "a read without a version"
        );
    }
    assert_eq!(
        reads(&instance, "standby-1").await,
        0.0,
        "the standby is paused"
    );

    // Once the standby has replayed the writes, a fresh instance's
    // `min_version` read is answered there.
    pair.resume_replay().await;
    pair.wait_until_caught_up().await;
    let written = json_of(&primary_only, &format!("/v1/games/{}", game.id), None).await["version"]
        .as_u64()
        .unwrap();
    let fresh = reader_of(&pair, &primary_only, NEVER_LAGGING).await;
    let read = json_of(
        &fresh,
        &format!("/v1/games/{}/state?min_version={written}", game.id),
        None,
    )
    .await;
    assert_eq!(read["version"], json!(written));
    assert_eq!(reads(&fresh, "standby-1").await, 1.0);
}

/// A standby stopped mid-run costs no request: reads go to the primary
/// while it is down, and to it again once it is back, on its own.
#[tokio::test(flavor = "multi_thread")]
async fn a_standby_stopped_mid_run_costs_no_request_and_comes_back() {
    let (pair, writer) = replicated().await;
    let mut games = Vec::new();
    for seed in 0..3 {
        let game = writer.create("treeblox", json!(null), seed).await;
        let version = play(&writer, &game, 2, seed).await;
        games.push((game, version));
    }
    pair.wait_until_caught_up().await;
    let reader = reader_of(&pair, &writer, NEVER_LAGGING).await;
    let state_at =
        |(game, version): &(Created, u64)| format!("/v1/games/{}/state?at={version}", game.id);

    json_of(&reader, &state_at(&games[0]), None).await;
    assert_eq!(reads(&reader, "standby-1").await, 1.0);

    pair.stop_standby().await;
    // Every read is answered, whether or not the probe has noticed yet.
    json_of(&reader, &state_at(&games[1]), None).await;
    assert_eq!(reads(&reader, "primary").await, 1.0);
    assert!(skips(&reader, "down").await >= 1.0);
    until_standby_up_is(&reader, 0.0).await;

    pair.restart_standby().await;
    until_standby_up_is(&reader, 1.0).await;
    json_of(&reader, &state_at(&games[2]), None).await;
    assert_eq!(reads(&reader, "standby-1").await, 2.0, "back on its own");
}

/// A standby promoted under the instance's open connections (a failover
/// made it the primary) is a standby no more: the probe marks it down and
/// reads go to the primary, though its connections still answer.
#[tokio::test(flavor = "multi_thread")]
async fn a_standby_promoted_under_its_connections_is_read_from_no_more() {
    let (pair, writer) = replicated().await;
    let mut paths = Vec::new();
    for seed in 5..7 {
        let game = writer.create("treeblox", json!(null), seed).await;
        let version = play(&writer, &game, 2, seed).await;
        paths.push(format!("/v1/games/{}/state?at={version}", game.id));
    }
    pair.wait_until_caught_up().await;
    let reader = reader_of(&pair, &writer, NEVER_LAGGING).await;
    json_of(&reader, &paths[0], None).await;
    assert_eq!(reads(&reader, "standby-1").await, 1.0);

    pair.promote_standby().await;
    until_standby_up_is(&reader, 0.0).await;
    json_of(&reader, &paths[1], None).await;
    assert_eq!(
        reads(&reader, "standby-1").await,
        1.0,
        "not read from once promoted"
    );
    assert_eq!(reads(&reader, "primary").await, 1.0);
}

/// A standby whose replay lags past `--replica-max-lag` is skipped even
/// for versions it holds, and used again once it has caught up.
#[tokio::test(flavor = "multi_thread")]
async fn a_standby_lagging_past_the_bound_is_skipped() {
    let (pair, writer) = replicated().await;
    let old = writer.create("treeblox", json!(null), 1).await;
    let old_version = play(&writer, &old, 2, 1).await;
    pair.pause_when_caught_up().await;
    let busy = writer.create("treeblox", json!(null), 2).await;
    play(&writer, &busy, 2, 2).await;

    let reader = writer
        .another_instance_with(reading_from_standby(&pair, Duration::from_millis(200)))
        .await;
    let deadline = std::time::Instant::now() + PATIENCE;
    while counted(
        &reader,
        "umpire_standby_lag_seconds",
        &["standby=\"standby-1\""],
    )
    .await
        <= 0.2
    {
        assert!(std::time::Instant::now() < deadline, "the lag never showed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let path = format!("/v1/games/{}/state?at={old_version}", old.id);
    let answer = json_of(&reader, &path, None).await;
    assert_eq!(answer["version"], json!(old_version));
    assert_eq!(reads(&reader, "primary").await, 1.0);
    assert_eq!(reads(&reader, "standby-1").await, 0.0);
    assert!(skips(&reader, "lagging").await >= 1.0);

    pair.resume_replay().await;
    pair.wait_until_caught_up().await;
    let deadline = std::time::Instant::now() + PATIENCE;
    while counted(
        &reader,
        "umpire_standby_lag_seconds",
        &["standby=\"standby-1\""],
    )
    .await
        > 0.2
    {
        assert!(std::time::Instant::now() < deadline, "the lag never went");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let other = format!("/v1/games/{}/events?after=0&limit=1", busy.id);
    json_of(&reader, &other, None).await;
    assert_eq!(reads(&reader, "standby-1").await, 1.0, "used again");
}

/// What the standby serves each viewer is what the primary serves it:
/// every version's state, score and events page of a game with hidden
/// information, for the spectator, every seat and the umpire, each read
/// first by an instance of its own from the standby.
#[tokio::test(flavor = "multi_thread")]
async fn standby_served_reads_show_each_viewer_only_what_it_may_see() {
    let (pair, writer) = replicated().await;
    let game = writer.create("flower_fields", json!(null), 5).await;
    let played = play(&writer, &game, 12, 5).await;
    pair.pause_when_caught_up().await;

    let mut viewers: Vec<Option<&str>> = vec![None, Some(game.umpire_token.as_str())];
    viewers.extend(
        game.seat_tokens
            .iter()
            .map(|(_, token)| Some(token.as_str())),
    );
    for token in viewers {
        let reader = reader_of(&pair, &writer, NEVER_LAGGING).await;
        for version in (1..=played).rev() {
            let mut paths = vec![
                format!("/v1/games/{}/state?at={version}", game.id),
                format!("/v1/games/{}/score?at={version}", game.id),
            ];
            // The log's last page is the primary's to answer.
            if version < played {
                paths.push(format!(
                    "/v1/games/{}/events?after={}&limit=1",
                    game.id,
                    version - 1
                ));
            }
            for path in paths {
                assert_eq!(
                    json_of(&reader, &path, token).await,
                    json_of(&writer, &path, token).await,
                    "{path} as {token:?}"
                );
            }
        }
        assert!(
            reads(&reader, "standby-1").await >= 1.0,
            "{}",
            reader.get("/metrics", None).await.text().await.unwrap()
        );
        assert_eq!(reads(&reader, "primary").await, 0.0);
    }
    pair.resume_replay().await;
}

/// Batch jobs read from a standby given with `--replica`: scoring every
/// stored game, exporting them all and auditing one, with no database
/// configured besides (so nothing could have come from elsewhere) and on a
/// server that refuses every write.
#[tokio::test(flavor = "multi_thread")]
async fn batch_jobs_read_from_a_standby() {
    let (pair, writer) = replicated().await;
    let game = writer.create("treeblox", json!(null), 3).await;
    writer.play_to_the_end(&game, 3, 500).await;
    let version =
        json_of(&writer, &format!("/v1/games/{}", game.id), None).await["version"].clone();
    pair.wait_until_caught_up().await;
    let nowhere = tempfile::tempdir().unwrap();
    let env = [("UMPIRE_DATA_DIR", nowhere.path().to_str().unwrap())];
    let standby = pair.standby.service_url.as_str();

    let (code, out, err) = crate::commands::umpire(
        &["score", "--db", "--replica", standby, "--format", "jsonl"],
        &env,
    );
    assert_eq!(code, 0, "{err}");
    let row: Value = serde_json::from_str(out.lines().next().expect("a row")).unwrap();
    assert_eq!(row["game_id"], json!(game.id));
    assert_eq!(row["final"], json!(true), "{row}");
    assert_eq!(row["events"], version, "the whole game: {row}");
    assert_eq!(row["source"], json!("db"));

    let (code, out, err) =
        crate::commands::umpire(&["export", "--all", "--replica", standby], &env);
    assert_eq!(code, 0, "{err}");
    let archive = umpire_archive::Archive::from_json(out.lines().next().unwrap()).unwrap();
    assert_eq!(archive.game_id.to_string(), game.id);

    let (code, out, err) =
        crate::commands::umpire(&["audit", &game.id, "--replica", standby], &env);
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["valid"], true);
    assert!(
        !nowhere.path().join("pgdata").exists(),
        "no private cluster was made"
    );
}

/// An audit or export of a finished game over HTTP reads its log from a
/// standby that holds its end; one still being played reads the primary.
#[tokio::test(flavor = "multi_thread")]
async fn a_finished_games_audit_and_export_read_a_standby() {
    let (pair, writer) = replicated().await;
    let finished = writer.create("treeblox", json!(null), 5).await;
    writer.play_to_the_end(&finished, 5, 500).await;
    let playing = writer.create("treeblox", json!(null), 6).await;
    play(&writer, &playing, 2, 6).await;
    pair.wait_until_caught_up().await;
    let reader = reader_of(&pair, &writer, NEVER_LAGGING).await;

    for path in ["export", "audit"] {
        let path = format!("/v1/games/{}/{path}", finished.id);
        let from_standby = reader.get(&path, Some(&finished.umpire_token)).await;
        assert_eq!(from_standby.status(), StatusCode::OK);
        let from_standby = from_standby.text().await.unwrap();
        let from_primary = writer.get(&path, Some(&finished.umpire_token)).await;
        assert_eq!(from_standby, from_primary.text().await.unwrap(), "{path}");
    }
    assert_eq!(reads(&reader, "standby-1").await, 2.0);
    assert_eq!(reads(&reader, "primary").await, 0.0);

    let path = format!("/v1/games/{}/export", playing.id);
    let answer = reader.get(&path, Some(&playing.umpire_token)).await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(reads(&reader, "primary").await, 1.0, "a game in progress");
    assert_eq!(skips(&reader, "behind").await, 1.0);
}

/// A stream catching up reads the events from a standby that holds them
/// (the primary is asked only how far the log reaches); an event beyond
/// the standby comes from the primary, once, in order.
#[tokio::test(flavor = "multi_thread")]
async fn a_stream_catches_up_from_a_standby_and_follows_from_the_primary() {
    let (pair, writer) = replicated().await;
    let game = writer.create("treeblox", json!(null), 9).await;
    let held = play(&writer, &game, 4, 9).await;
    pair.pause_when_caught_up().await;
    let reader = reader_of(&pair, &writer, NEVER_LAGGING).await;

    let mut stream = crate::streams::Sse::open(&reader, &game.id, None, Some(0)).await;
    for version in 1..=held {
        let message = stream.next_event(PATIENCE).await.expect("an event");
        assert_eq!(message.id(), Some(version));
    }
    assert!(reads(&reader, "standby-1").await >= 1.0);
    assert_eq!(reads(&reader, "primary").await, 0.0);

    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(10);
    let newest = writer.play_one(&game, &mut rng).await.unwrap()["version"]
        .as_u64()
        .unwrap();
    for version in held + 1..=newest {
        let message = stream.next_event(PATIENCE).await.expect("the new event");
        assert_eq!(message.id(), Some(version));
    }
    assert!(
        reads(&reader, "primary").await >= 1.0,
        "the standby is paused"
    );
    pair.resume_replay().await;
}

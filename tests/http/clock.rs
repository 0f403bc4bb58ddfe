//! The clock on the real server and PostgreSQL, on real time: games whose
//! seats stop acting are timed out by the clock as each rule book says, and
//! finish; two instances record each timeout once; an action racing its
//! deadline has one outcome; a restart times out what fell due while no
//! instance kept time; pause, resume and extra time move deadlines; the
//! audit refuses a forged early timeout.
//!
//! Nothing here waits a fixed time for the clock: each test waits (up to a
//! generous bound) until the log shows what it expects, so a busy machine
//! makes it slower, never wrong.

use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use serde_json::{json, Value};
use umpire_api::ServiceOptions;
use umpire_archive::Archive;
use umpire_domain::record::format_recorded_at;
use umpire_domain::RecordedEvent;

use crate::support::{assert_error, metric, Created, TestApp};

/// The longest a test waits for the clock to do what it expects.
const PATIENCE: Duration = Duration::from_secs(120);

async fn create_clocked(app: &TestApp, game: &str, options: Value, per_move_ms: u64) -> Created {
    app.create_with(&json!({"game": game, "options": options, "seed": 5,
                            "clock": {"per_move_ms": per_move_ms, "start": "now"}}))
        .await
}

/// The whole log, as the umpire exports it.
async fn log_of(app: &TestApp, game: &Created) -> Archive {
    app.get(
        &format!("/v1/games/{}/export", game.id),
        Some(&game.umpire_token),
    )
    .await
    .json()
    .await
    .unwrap()
}

/// Waits until the game's status satisfies `done`; the status then.
async fn wait_for(app: &TestApp, game: &Created, done: impl Fn(&Value) -> bool) -> Value {
    let started = std::time::Instant::now();
    loop {
        let status = app.summary(&game.id).await["status"].clone();
        if done(&status) {
            return status;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "game {} never got there; its status: {status}",
            game.id
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn finished(status: &Value) -> bool {
    status["finished"] == true
}

fn time(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

/// The clock's timeouts in the log: one per decision (its first event),
/// as (seat, deadline, recorded at).
fn clock_timeouts(log: &Archive) -> Vec<(String, DateTime<Utc>, DateTime<Utc>)> {
    let mut timeouts = Vec::new();
    let mut previous: Option<&RecordedEvent> = None;
    for event in &log.events {
        let first_of_decision = previous.is_none_or(|before| {
            before.decided_at != event.decided_at || before.actor != event.actor
        });
        if event.actor == "clock" && first_of_decision {
            timeouts.push((
                event.action["seat"].as_str().unwrap().to_string(),
                time(event.action["deadline"].as_str().unwrap()),
                time(&event.recorded_at),
            ));
        }
        previous = Some(event);
    }
    timeouts
}

/// Every clock timeout recorded at or after its deadline, and the game's
/// audit clean: the log bears every deadline out.
async fn assert_timely_and_audited(app: &TestApp, game: &Created, log: &Archive) -> Value {
    for (seat, deadline, recorded) in clock_timeouts(log) {
        assert!(recorded >= deadline, "seat {seat} timed out early");
    }
    let audit: Value = app
        .get(
            &format!("/v1/games/{}/audit", game.id),
            Some(&game.umpire_token),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(audit["valid"], true, "{}", audit["first_failure"]);
    audit
}

#[tokio::test]
async fn treeblox_seats_that_stop_acting_time_out_and_the_game_ends_drawn() {
    // Given a Treeblox game with one second a move, and nobody acting.
    let app = TestApp::spawn().await;
    let game = create_clocked(&app, "treeblox", json!({}), 1000).await;
    // The state shows dark's deadline, one second after it became due.
    let state = app.summary(&game.id).await["status"].clone();
    let dark = &state["clock"]["seats"]["dark"];
    assert_eq!(
        time(dark["deadline"].as_str().unwrap()) - time(dark["due_since"].as_str().unwrap()),
        chrono::TimeDelta::seconds(1)
    );
    assert!(state["clock"]["seats"]["light"]["deadline"].is_null());
    // Then §R: two first-turn timeouts end the game 0–0.
    wait_for(&app, &game, finished).await;
    let log = log_of(&app, &game).await;
    let seats: Vec<String> = clock_timeouts(&log).into_iter().map(|t| t.0).collect();
    assert_eq!(seats, ["dark", "light"]);
    let audit = assert_timely_and_audited(&app, &game, &log).await;
    assert_eq!(
        audit["score"]["winners"],
        json!([]),
        "a draw: {}",
        audit["score"]
    );
    assert_eq!(audit["score"]["final"], true);
    let metrics = app.get("/metrics", None).await.text().await.unwrap();
    assert_eq!(metric(&metrics, "umpire_clock_timeouts_total"), 2.0);
}

#[tokio::test]
async fn arboretum_bids_time_out_as_empty_bids_round_after_round() {
    // The clock does not run while the start is chosen (the rules allow no
    // timeout then): red chooses, then nobody acts.
    let app = TestApp::spawn().await;
    let game = create_clocked(&app, "arboretum", json!({}), 1000).await;
    let state = app.summary(&game.id).await["status"].clone();
    assert!(state["clock"]["seats"]
        .as_object()
        .unwrap()
        .values()
        .all(|seat| seat["deadline"].is_null()));
    let chosen = app
        .submit(
            &game.id,
            Some(game.token("red")),
            json!({"type": "choose_start", "seat": "red"}),
        )
        .await;
    assert_eq!(chosen.status(), StatusCode::CREATED);
    // §3.2: each timed-out seat bids nothing; with no turns each round
    // ends at once, for eleven rounds.
    wait_for(&app, &game, finished).await;
    let log = log_of(&app, &game).await;
    let timeouts = clock_timeouts(&log);
    assert_eq!(timeouts.len(), 22);
    for round in timeouts.chunks(2) {
        let mut seats: Vec<&str> = round.iter().map(|t| t.0.as_str()).collect();
        seats.sort();
        assert_eq!(seats, ["blue", "red"]);
    }
    assert_timely_and_audited(&app, &game, &log).await;
}

#[tokio::test]
async fn a_solo_draft_cider_seat_has_every_pick_timed_out() {
    // §2: each timeout picks the hand's first card into the Bad batch; a
    // solo seat picks all twelve cards of the four classic rounds.
    let app = TestApp::spawn().await;
    let game = create_clocked(&app, "draft_cider", json!({"players": 1}), 1000).await;
    wait_for(&app, &game, finished).await;
    let log = log_of(&app, &game).await;
    let timeouts = clock_timeouts(&log);
    assert_eq!(timeouts.len(), 12);
    assert!(timeouts.iter().all(|t| t.0 == "0"));
    // Each pick is a new move: a second after the one before.
    for pair in timeouts.windows(2) {
        assert!(pair[1].1 - pair[0].2 == chrono::TimeDelta::seconds(1));
    }
    assert_timely_and_audited(&app, &game, &log).await;
}

#[tokio::test]
async fn flower_fields_seats_all_miss_every_round_then_the_umpire_picks_the_candidate() {
    // §5: a missed submission; every seat pending in each of twelve rounds.
    let app = TestApp::spawn().await;
    let game = create_clocked(&app, "flower_fields", json!({}), 1000).await;
    let status = wait_for(&app, &game, |status| {
        status["finished"] == true || status["phase"] == "choosing_candidate"
    })
    .await;
    let log = log_of(&app, &game).await;
    let timeouts = clock_timeouts(&log);
    assert_eq!(timeouts.len(), 60);
    for round in timeouts.chunks(5) {
        let mut seats: Vec<&str> = round.iter().map(|t| t.0.as_str()).collect();
        seats.sort();
        assert_eq!(seats, ["0", "1", "2", "3", "4"]);
    }
    assert_timely_and_audited(&app, &game, &log).await;
    // The clock never times out the umpire: a tie waits for its choice.
    if status["phase"] == "choosing_candidate" {
        let legal = app.legal_actions(&game.id, &game.umpire_token).await;
        let choice = legal["actions"][0].clone();
        let chosen = app.submit(&game.id, Some(&game.umpire_token), choice).await;
        assert_eq!(chosen.status(), StatusCode::CREATED);
    }
    wait_for(&app, &game, finished).await;
}

#[tokio::test]
async fn two_instances_on_one_database_record_each_timeout_once() {
    let first = TestApp::spawn().await;
    let second = first.another_instance().await;
    // Fifty games, created on both, each timed out by whichever instance
    // looks first: exactly dark's and light's timeouts, never one twice.
    let mut games = Vec::new();
    for index in 0..50 {
        let app = if index % 2 == 0 { &first } else { &second };
        games.push(create_clocked(app, "treeblox", json!({}), 1000).await);
    }
    for game in &games {
        wait_for(&first, game, finished).await;
        let log = log_of(&first, game).await;
        let seats: Vec<String> = clock_timeouts(&log).into_iter().map(|t| t.0).collect();
        assert_eq!(seats, ["dark", "light"], "game {}", game.id);
        assert_eq!(
            log.events.len(),
            first.stored_version(&game.id).await as usize
        );
    }
    let fired: f64 = [&first, &second]
        .iter()
        .map(|app| async move {
            let text = app.get("/metrics", None).await.text().await.unwrap();
            metric(&text, "umpire_clock_timeouts_total")
        })
        .collect::<futures_util::future::JoinAll<_>>()
        .await
        .into_iter()
        .sum();
    assert_eq!(fired, 100.0);
}

#[tokio::test]
async fn an_action_racing_its_deadline_has_one_outcome_and_the_log_says_which() {
    let app = TestApp::spawn().await;
    let mut outcomes = (0, 0);
    for attempt in 0..8 {
        let game = create_clocked(&app, "treeblox", json!({}), 1000).await;
        let status = app.summary(&game.id).await["status"].clone();
        let deadline = time(
            status["clock"]["seats"]["dark"]["deadline"]
                .as_str()
                .unwrap(),
        );
        // Aim at the deadline itself, a little before or after it.
        let aim = deadline + chrono::TimeDelta::milliseconds(attempt * 40 - 160);
        if let Ok(wait) = (aim - Utc::now()).to_std() {
            tokio::time::sleep(wait).await;
        }
        let legal = app.legal_actions(&game.id, game.token("dark")).await;
        let response = app
            .submit(
                &game.id,
                Some(game.token("dark")),
                legal["actions"][0].clone(),
            )
            .await;
        let accepted = response.status() == StatusCode::CREATED;
        wait_for(&app, &game, |status| {
            status["to_act"] == json!(["light"]) || finished(status)
        })
        .await;
        let log = log_of(&app, &game).await;
        // The first decision after setup is either dark's own or the clock's.
        let first = log
            .events
            .iter()
            .find(|event| event.actor != "system")
            .unwrap();
        if accepted {
            assert_eq!(first.actor, "seat:dark");
            outcomes.0 += 1;
        } else {
            assert_eq!(first.actor, "clock");
            assert!(response.status().is_client_error());
            outcomes.1 += 1;
        }
        assert_eq!(
            log.events
                .iter()
                .filter(|event| event.decided_at == first.decided_at)
                .count(),
            log.events
                .iter()
                .filter(|event| event.decided_at == first.decided_at && event.actor == first.actor)
                .count(),
            "one outcome at version {}",
            first.decided_at
        );
    }
    assert_eq!(outcomes.0 + outcomes.1, 8);
}

#[tokio::test]
async fn a_seat_overdue_while_no_instance_kept_time_is_timed_out_on_restart() {
    // Given an instance that keeps no time, and a deadline passing.
    let silent = TestApp::spawn_with(ServiceOptions {
        keep_time: false,
        ..ServiceOptions::default()
    })
    .await;
    let game = create_clocked(&silent, "treeblox", json!({}), 200).await;
    let status = silent.summary(&game.id).await["status"].clone();
    let deadline = time(
        status["clock"]["seats"]["dark"]["deadline"]
            .as_str()
            .unwrap(),
    );
    while Utc::now() < deadline + chrono::TimeDelta::milliseconds(500) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        silent.stored_version(&game.id).await,
        log_of(&silent, &game).await.events.len() as u64
    );
    assert!(clock_timeouts(&log_of(&silent, &game).await).is_empty());
    // When an instance that keeps time starts on the same database,
    // then dark is timed out at once, late, for the deadline it missed.
    let keeper = silent.another_instance().await;
    wait_for(&keeper, &game, |status| status["to_act"] != json!(["dark"])).await;
    let timeouts = clock_timeouts(&log_of(&keeper, &game).await);
    assert_eq!(timeouts[0].0, "dark");
    assert_eq!(timeouts[0].1, deadline);
}

#[tokio::test]
async fn the_umpire_pauses_resumes_and_gives_time_and_deadlines_move_as_documented() {
    let app = TestApp::spawn().await;
    let game = create_clocked(&app, "treeblox", json!({}), 2000).await;
    let umpire = Some(game.umpire_token.as_str());
    let before = app.summary(&game.id).await["status"]["clock"].clone();
    let first_deadline = time(before["seats"]["dark"]["deadline"].as_str().unwrap());
    let pause = app
        .submit(&game.id, umpire, json!({"type": "clock_pause"}))
        .await;
    assert_eq!(pause.status(), StatusCode::CREATED);
    // A seat may not touch the clock; a paused clock is not paused again.
    assert_error(
        app.submit(
            &game.id,
            Some(game.token("dark")),
            json!({"type": "clock_resume"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "clock.umpire_only",
    )
    .await;
    assert_error(
        app.submit(&game.id, umpire, json!({"type": "clock_pause"}))
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "clock.already_paused",
    )
    .await;
    let paused = app.summary(&game.id).await["status"]["clock"].clone();
    let dark = &paused["seats"]["dark"];
    assert!(dark["deadline"].is_null());
    let left_ms = dark["left_ms"].as_u64().unwrap();
    assert!(left_ms <= 2000);
    // Past the deadline the paused clock lets be: nothing is recorded.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(clock_timeouts(&log_of(&app, &game).await).is_empty());
    // Resumed: dark has what it had left, from the resume.
    let resume = app
        .submit(&game.id, umpire, json!({"type": "clock_resume"}))
        .await;
    assert_eq!(resume.status(), StatusCode::CREATED);
    let log = log_of(&app, &game).await;
    let paused_at = time(&log.events[log.events.len() - 2].recorded_at);
    let resumed_at = time(&log.events.last().unwrap().recorded_at);
    let running = app.summary(&game.id).await["status"]["clock"].clone();
    let deadline = time(running["seats"]["dark"]["deadline"].as_str().unwrap());
    assert_eq!(deadline, resumed_at + (first_deadline - paused_at));
    assert_eq!(
        (first_deadline - paused_at).num_milliseconds() as u64,
        left_ms
    );
    // Extra time goes to dark's reserve: its deadline moves by as much.
    let added = app
        .submit(
            &game.id,
            umpire,
            json!({"type": "clock_add_time", "seat": "dark", "ms": 60000}),
        )
        .await;
    assert_eq!(added.status(), StatusCode::CREATED);
    let later = app.summary(&game.id).await["status"]["clock"].clone();
    assert_eq!(later["seats"]["dark"]["reserve_left_ms"], 60000);
    assert_eq!(
        time(later["seats"]["dark"]["deadline"].as_str().unwrap()),
        deadline + chrono::TimeDelta::seconds(60)
    );
    // Every one of them is in the log, by the umpire, and audits clean.
    let types: Vec<String> = log_of(&app, &game)
        .await
        .events
        .iter()
        .filter(|event| event.actor == "umpire")
        .map(|event| event.event_type.clone())
        .collect();
    assert_eq!(types, ["clock_paused", "clock_resumed", "clock_time_added"]);
    assert_timely_and_audited(&app, &game, &log_of(&app, &game).await).await;
}

#[tokio::test]
async fn an_imported_archive_with_a_timeout_recorded_before_its_deadline_is_refused() {
    let app = TestApp::spawn().await;
    let game = create_clocked(&app, "treeblox", json!({}), 1000).await;
    wait_for(&app, &game, finished).await;
    let mut archive = log_of(&app, &game).await;
    // An honest copy imports (under a new id) and audits clean.
    archive.game_id = uuid::Uuid::new_v4();
    relink(&mut archive, 1);
    let (status, body) = app.import(&archive).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // Forged: dark's timeout recorded 300 ms before its deadline, the hash
    // chain rebuilt so that only the clock can tell.
    let mut forged = archive.clone();
    forged.game_id = uuid::Uuid::new_v4();
    let index = forged
        .events
        .iter()
        .position(|event| event.actor == "clock")
        .unwrap();
    let deadline = time(forged.events[index].action["deadline"].as_str().unwrap());
    let early = format_recorded_at(&(deadline - chrono::TimeDelta::milliseconds(300)));
    let decided_at = forged.events[index].decided_at;
    for event in forged.events[index..].iter_mut() {
        if event.decided_at == decided_at {
            event.recorded_at = early.clone();
        }
    }
    relink(&mut forged, 1);
    let (status, body) = app.import(&forged).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["code"], "archive_untimely_timeout", "{body}");
    assert_eq!(body["details"]["seq"], forged.events[index].seq, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("before its deadline"),
        "{body}"
    );
}

/// Recomputes the hash chain from event `from` (1-based) on.
fn relink(archive: &mut Archive, from: u64) {
    let game_id = archive.game_id.to_string();
    for index in (from - 1) as usize..archive.events.len() {
        if index > 0 {
            archive.events[index].prev_hash = archive.events[index - 1].hash.clone();
        }
        let hash = archive.events[index].chain_link(&game_id).hash();
        archive.events[index].hash = hash;
    }
}

#[tokio::test]
async fn a_stream_carries_the_clock_in_every_status() {
    let app = TestApp::spawn().await;
    let game = create_clocked(&app, "treeblox", json!({}), 60_000).await;
    let mut stream = app
        .get(&format!("/v1/games/{}/stream", game.id), None)
        .await;
    assert_eq!(stream.status(), StatusCode::OK);
    // The setup's two events (the deal, the clock), each with its status.
    let mut text = String::new();
    let data = loop {
        let chunk = tokio::time::timeout(PATIENCE, stream.chunk())
            .await
            .expect("the stream sends its catch-up")
            .unwrap()
            .expect("the stream stays open");
        text.push_str(&String::from_utf8_lossy(&chunk));
        let lines: Vec<Value> = text
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .filter_map(|data| serde_json::from_str(data).ok())
            .collect();
        if lines.len() >= 2 {
            break lines;
        }
    };
    assert_eq!(data[1]["type"], "clock_set");
    assert_eq!(data[1]["actor"], "system");
    let clock = &data[1]["status"]["clock"];
    assert_eq!(clock["per_move_ms"], 60_000);
    assert!(clock["seats"]["dark"]["deadline"].is_string(), "{clock}");
}

#[tokio::test]
async fn a_new_games_status_shows_every_seats_clock_with_its_reserve() {
    let app = TestApp::spawn().await;
    for game in ["arboretum", "treeblox", "draft_cider", "flower_fields"] {
        let created = app
            .create_with(&json!({"game": game, "seed": 5,
                                 "clock": {"per_move_ms": 60000, "reserve_ms": 4000}}))
            .await;
        let clock = app.summary(&created.id).await["status"]["clock"].clone();
        let mut shown: Vec<&String> = clock["seats"].as_object().unwrap().keys().collect();
        let mut seats: Vec<&String> = created.seat_tokens.iter().map(|(seat, _)| seat).collect();
        shown.sort();
        seats.sort();
        assert_eq!(shown, seats, "{game}: {clock}");
        for seat in seats {
            assert_eq!(
                clock["seats"][seat]["reserve_left_ms"], 4000,
                "{game} {seat}"
            );
        }
    }
}

#[tokio::test]
async fn a_clock_time_out_of_range_at_creation_is_refused_by_the_clocks_rule() {
    let app = TestApp::spawn().await;
    // Written as text: past 64 bits is no `serde_json::Value`.
    let out_of_range = [
        r#"{"per_move_ms": 60000, "reserve_ms": -1}"#,
        r#"{"per_move_ms": -1}"#,
        r#"{"per_move_ms": 99}"#,
        r#"{"per_move_ms": 60000, "reserve_ms": 2592000001}"#,
        r#"{"per_move_ms": 60000, "reserve_ms": 18446744073709551616}"#,
        r#"{"per_move_ms": -9223372036854775809}"#,
    ];
    for clock in out_of_range {
        let body = format!(r#"{{"game": "treeblox", "clock": {clock}}}"#);
        let refusal = assert_error(
            app.post("/v1/games", None, body).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "clock.invalid_time",
        )
        .await;
        assert_eq!(refusal["rule"], "clock §1", "{clock}");
    }
    // What is not a whole number of milliseconds is not a clock at all.
    for clock in [r#"{"per_move_ms": 1.5}"#, r#"{"per_move_ms": "60000"}"#] {
        let body = format!(r#"{{"game": "treeblox", "clock": {clock}}}"#);
        assert_error(
            app.post("/v1/games", None, body).await,
            StatusCode::BAD_REQUEST,
            "malformed_json",
        )
        .await;
    }
}

#[tokio::test]
async fn a_pause_after_a_deadline_does_not_save_the_seat_its_timeout_is_recorded_while_paused() {
    // Given an instance that keeps no time, dark's deadline passing, and
    // then the umpire's pause.
    let silent = TestApp::spawn_with(ServiceOptions {
        keep_time: false,
        ..ServiceOptions::default()
    })
    .await;
    let game = create_clocked(&silent, "treeblox", json!({}), 200).await;
    let status = silent.summary(&game.id).await["status"].clone();
    let deadline = time(
        status["clock"]["seats"]["dark"]["deadline"]
            .as_str()
            .unwrap(),
    );
    while Utc::now() < deadline + chrono::TimeDelta::milliseconds(300) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pause = silent
        .submit(
            &game.id,
            Some(&game.umpire_token),
            json!({"type": "clock_pause"}),
        )
        .await;
    assert_eq!(pause.status(), StatusCode::CREATED);
    // The paused clock shows dark's deadline, with nothing left.
    let paused = silent.summary(&game.id).await["status"]["clock"].clone();
    assert_eq!(
        time(paused["seats"]["dark"]["deadline"].as_str().unwrap()),
        deadline
    );
    assert_eq!(paused["seats"]["dark"]["left_ms"], 0);
    // When an instance that keeps time starts, dark is timed out while the
    // clock stays paused, for the deadline that passed before the pause.
    let keeper = silent.another_instance().await;
    let after = wait_for(&keeper, &game, |status| status["to_act"] != json!(["dark"])).await;
    assert!(after["clock"]["paused_since"].is_string(), "{after}");
    let log = log_of(&keeper, &game).await;
    let timeouts = clock_timeouts(&log);
    assert_eq!(timeouts.len(), 1);
    assert_eq!((timeouts[0].0.as_str(), timeouts[0].1), ("dark", deadline));
    // Light, due during the pause, has its whole time per move.
    assert_eq!(after["clock"]["seats"]["light"]["left_ms"], 200);
    assert_timely_and_audited(&keeper, &game, &log).await;
}

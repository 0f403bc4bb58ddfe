//! Long logs: a read at any past version is answered from the states a
//! fold keeps on the way (every `CHECKPOINT_EVERY` events) exactly as the
//! game was at that version, and a log holds at most
//! `MAX_EVENTS_PER_GAME` events: the action past it, and an archive longer
//! than it, are refused `log_full` and the log is unchanged.

use std::sync::Arc;

use reqwest::StatusCode;
use serde_json::{json, Value};
use umpire_storage::NewEvent;

use crate::support::{assert_error, TestApp};

/// A clocked Treeblox game (the umpire may pause and resume its clock,
/// actions outside the rules that lengthen its log).
async fn clocked_game(app: &TestApp) -> crate::support::Created {
    app.create_with(&json!({
        "game": "treeblox",
        "options": {},
        "seed": 11,
        "clock": {"per_move_ms": 600_000, "reserve_ms": 600_000, "start": "now"}
    }))
    .await
}

async fn umpire_state(app: &TestApp, id: &str, token: &str, at: Option<u64>) -> Value {
    let path = match at {
        Some(at) => format!("/v1/games/{id}/state?at={at}"),
        None => format!("/v1/games/{id}/state"),
    };
    let response = app.get(&path, Some(token)).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response.json().await.unwrap()
}

/// Records the game's last two events (a pause and a resume) again and
/// again straight into the store until its log is full: what thousands of
/// requests would do, in a few statements.
async fn fill_the_log(app: &TestApp, game_id: &str) {
    let id: uuid::Uuid = game_id.parse().unwrap();
    let recorded = app
        .store
        .read_after(&umpire_storage::Head::start(id))
        .await
        .unwrap()
        .0;
    let pair: Vec<&umpire_domain::RecordedEvent> = recorded.iter().rev().take(2).rev().collect();
    let max = umpire_service::MAX_EVENTS_PER_GAME;
    loop {
        let head = app.store.head(id).await.unwrap();
        let room = max - head.version();
        if room == 0 {
            break;
        }
        let events: Vec<NewEvent> = (0..room.min(1000))
            .map(|index| {
                let event = pair[index as usize % 2];
                NewEvent {
                    event_type: event.event_type.clone(),
                    payload: event.payload.clone(),
                    actor: event.actor.clone(),
                    action: Arc::new(Value::Null),
                    rules_version: event.rules_version,
                }
            })
            .collect();
        app.store
            .append_at_head(&head, events, None)
            .await
            .expect("appended");
    }
}

/// A clocked game paused and resumed once, then filled to its longest log.
async fn a_full_game(app: &TestApp) -> crate::support::Created {
    let game = clocked_game(app).await;
    for action in [
        json!({"type": "clock_pause"}),
        json!({"type": "clock_resume"}),
    ] {
        let response = app.submit(&game.id, Some(&game.umpire_token), action).await;
        assert_eq!(response.status(), StatusCode::CREATED);
    }
    fill_the_log(app, &game.id).await;
    game
}

/// Given a game whose log grew past two checkpoints by pauses and
/// resumes, when each version it passed is read with `?at=` (from the
/// instance that holds the game and from a cold one), then each is the
/// state the game answered when it was at that version.
#[tokio::test]
async fn every_past_version_of_a_long_log_is_the_state_it_was() {
    let app = TestApp::spawn().await;
    let game = clocked_game(&app).await;
    let umpire = game.umpire_token.as_str();
    let mut seen = Vec::new();
    let first = umpire_state(&app, &game.id, umpire, None).await;
    seen.push(first);
    // 2 × 260 events: past the second checkpoint (256, 512).
    for step in 0..520 {
        let action = if step % 2 == 0 {
            json!({"type": "clock_pause"})
        } else {
            json!({"type": "clock_resume"})
        };
        let response = app.submit(&game.id, Some(umpire), action).await;
        assert_eq!(response.status(), StatusCode::CREATED, "step {step}");
        seen.push(umpire_state(&app, &game.id, umpire, None).await);
    }
    let cold = app.another_instance().await;
    for state in &seen {
        let version = state["version"].as_u64().unwrap();
        for reader in [&app, &cold] {
            let past = umpire_state(reader, &game.id, umpire, Some(version)).await;
            assert_eq!(&past, state, "version {version}");
        }
    }
}

/// `umpire_fold_snapshots_total` for one outcome: 0 until one is counted.
async fn snapshots(app: &TestApp, outcome: &str) -> f64 {
    let text = app.get("/metrics", None).await.text().await.unwrap();
    let series = format!("umpire_fold_snapshots_total{{outcome=\"{outcome}\"}}");
    text.lines()
        .find_map(|line| line.strip_prefix(&series)?.trim().parse().ok())
        .unwrap_or(0.0)
}

/// Given a full log folded whole by one instance, which keeps its
/// checkpoints in the database, when another instance that never read the
/// game is asked for versions across the log, then each is resumed from
/// the snapshot before it (and the game's start for the first) and is the
/// state the first instance answers from its fold.
#[tokio::test]
async fn a_cold_read_at_a_past_version_resumes_from_the_snapshot_before_it() {
    let app = TestApp::spawn().await;
    let game = a_full_game(&app).await;
    let umpire = game.umpire_token.as_str();
    umpire_state(&app, &game.id, umpire, None).await;
    let checkpoints =
        (umpire_service::MAX_EVENTS_PER_GAME / umpire_service::CHECKPOINT_EVERY) as f64;
    // Written in the background: a ceiling against a hang, not a pace.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while snapshots(&app, "kept").await < checkpoints {
        assert!(
            std::time::Instant::now() < deadline,
            "the checkpoints were never kept"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    let cold = app.another_instance().await;
    let versions = [7, 256, 5_000, 9_999];
    for version in versions {
        let resumed = umpire_state(&cold, &game.id, umpire, Some(version)).await;
        let whole = umpire_state(&app, &game.id, umpire, Some(version)).await;
        assert_eq!(resumed, whole, "version {version}");
    }
    assert_eq!(snapshots(&cold, "resumed").await, versions.len() as f64);
    assert_eq!(snapshots(&cold, "passed_by").await, 0.0);
}

/// Given a whole Flower Fields game (past the first checkpoint) imported,
/// when versions past 256 are read before the service ever folded the game,
/// then each is resumed from a snapshot the import kept (without one, a
/// version past 256 is read whole, and not counted), and is the state the
/// whole fold answers once the game is read.
#[tokio::test]
async fn an_imported_game_is_read_at_a_past_version_from_the_snapshots_its_import_kept() {
    let app = TestApp::spawn().await;
    let archive = crate::archive_support::simulated("flower_fields", 3);
    let last = archive.version();
    assert!(last > 270, "a game past the first checkpoint: {last}");
    let (status, created) = app.import(&archive).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let (id, umpire) = (
        created["id"].as_str().unwrap(),
        created["umpire_token"].as_str().unwrap(),
    );

    let versions = [260, last - 1];
    let mut resumed = Vec::new();
    for version in versions {
        resumed.push(umpire_state(&app, id, umpire, Some(version)).await);
    }
    assert_eq!(snapshots(&app, "resumed").await, versions.len() as f64);

    umpire_state(&app, id, umpire, None).await;
    for (version, resumed) in versions.iter().zip(&resumed) {
        let whole = umpire_state(&app, id, umpire, Some(*version)).await;
        assert_eq!(resumed, &whole, "version {version}");
    }
    assert_eq!(snapshots(&app, "resumed").await, versions.len() as f64);
}

/// Given a game whose log holds `MAX_EVENTS_PER_GAME` events, when the
/// umpire pauses its clock once more, or reissues a seat's token (the other
/// way the umpire appends), then each is refused `log_full` and the log is
/// unchanged.
#[tokio::test]
async fn an_action_or_a_reissue_past_the_longest_log_is_refused_log_full() {
    let app = TestApp::spawn().await;
    let game = a_full_game(&app).await;
    let umpire = game.umpire_token.as_str();
    let max = umpire_service::MAX_EVENTS_PER_GAME;
    let response = app
        .submit(&game.id, Some(umpire), json!({"type": "clock_pause"}))
        .await;
    let body = assert_error(response, StatusCode::UNPROCESSABLE_ENTITY, "log_full").await;
    assert!(
        body["message"].as_str().unwrap().contains("10000"),
        "{body}"
    );
    let reissue = app
        .post_json(
            &format!("/v1/games/{}/seats/dark/reissue", game.id),
            Some(umpire),
            &json!({}),
        )
        .await;
    assert_error(reissue, StatusCode::UNPROCESSABLE_ENTITY, "log_full").await;
    assert_eq!(app.stored_version(&game.id).await, max);
}

/// Given an archive of more events than a log may hold, when it is
/// imported, then it is refused `log_full` before it is replayed.
#[tokio::test]
async fn an_archive_longer_than_the_longest_log_is_refused_log_full() {
    let app = TestApp::spawn().await;
    let mut archive =
        serde_json::to_value(crate::archive_support::simulated("treeblox", 3)).unwrap();
    let events = archive["events"].as_array().unwrap().clone();
    let mut long = Vec::new();
    while long.len() as u64 <= umpire_service::MAX_EVENTS_PER_GAME {
        long.extend(events.iter().cloned());
    }
    archive["events"] = Value::Array(long);
    let archive: umpire_archive::Archive = serde_json::from_value(archive).unwrap();
    let (status, body) = app.import(&archive).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["code"], "log_full", "{body}");
}

/// Given a game on a service that takes the umpire's actions outside the
/// rules at a pace, when the umpire pauses and resumes past the
/// burst, then the next is refused 429 `too_many_umpire_actions` with
/// Retry-After and nothing is recorded, a reissue is refused alike, and the
/// seats still play.
#[tokio::test]
async fn the_umpires_actions_outside_the_rules_are_taken_at_a_pace() {
    // The default's pace with a burst of its own (the tests' servers lift
    // the default).
    let pace = umpire_service::throttle::Rate {
        burst: 20.0,
        ..umpire_service::throttle::UMPIRE_EXTRAS_PER_GAME
    };
    let app = TestApp::spawn_with(umpire_api::ServiceOptions {
        umpire_extras: pace,
        ..umpire_api::ServiceOptions::default()
    })
    .await;
    let game = clocked_game(&app).await;
    let umpire = game.umpire_token.as_str();
    let burst = pace.burst as usize;
    // The burst at once, then as fast as requests go: far faster than the
    // one every 2 s the game regains, so a refusal comes (a slow machine
    // only lets a few more through first).
    let mut taken = 0;
    let refused = loop {
        let action = if taken % 2 == 0 {
            json!({"type": "clock_pause"})
        } else {
            json!({"type": "clock_resume"})
        };
        let response = app.submit(&game.id, Some(umpire), action).await;
        if response.status() != StatusCode::CREATED {
            break response;
        }
        taken += 1;
        assert!(taken < burst * 4, "never refused");
    };
    assert!(taken >= burst, "the burst is taken whole: {taken}");
    let version = app.stored_version(&game.id).await;
    assert!(refused.headers().contains_key("retry-after"));
    assert_error(
        refused,
        StatusCode::TOO_MANY_REQUESTS,
        "too_many_umpire_actions",
    )
    .await;
    let reissue = app
        .post_json(
            &format!("/v1/games/{}/seats/dark/reissue", game.id),
            Some(umpire),
            &json!({}),
        )
        .await;
    assert_error(
        reissue,
        StatusCode::TOO_MANY_REQUESTS,
        "too_many_umpire_actions",
    )
    .await;
    assert_eq!(
        app.stored_version(&game.id).await,
        version,
        "nothing recorded"
    );
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(5);
    assert!(
        app.play_one(&game, &mut rng).await.is_some(),
        "the seats still play"
    );
}

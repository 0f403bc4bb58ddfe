//! Clients racing on one game: no lost or duplicated event.

use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::{json, Value};
use umpire_domain::record::verify_chain;

use crate::support::TestApp;

#[tokio::test]
async fn racing_submissions_with_the_same_expected_version_have_one_winner() {
    let app = TestApp::spawn().await;
    let created = app.create("arboretum", json!({}), 5).await;
    let red = created.token("red").to_string();
    let path = format!("/v1/games/{}/actions", created.id);
    let body = json!({"action": {"type": "choose_start", "seat": "red"}, "expected_version": 1});
    let responses = join_all((0..8).map(|_| app.post_json(&path, Some(&red), &body))).await;
    let statuses: Vec<StatusCode> = responses.iter().map(|r| r.status()).collect();
    let winners = statuses
        .iter()
        .filter(|s| **s == StatusCode::CREATED)
        .count();
    assert_eq!(winners, 1, "{statuses:?}");
    assert!(statuses.iter().all(|s| *s == StatusCode::CREATED
        || *s == StatusCode::CONFLICT
        || *s == StatusCode::UNPROCESSABLE_ENTITY));
    let events = app
        .store
        .read_events(uuid::Uuid::parse_str(&created.id).unwrap(), 0, None, None)
        .await
        .unwrap();
    let chosen = events
        .iter()
        .filter(|e| e.event_type == "starting_player_chosen")
        .count();
    assert_eq!(chosen, 1);
}

#[tokio::test]
async fn simultaneous_bids_without_expected_version_are_both_kept() {
    let app = TestApp::spawn().await;
    for round in 0..5u64 {
        let created = app.create("arboretum", json!({}), round).await;
        let red = created.token("red").to_string();
        let blue = created.token("blue").to_string();
        app.submit(
            &created.id,
            Some(&red),
            json!({"type": "choose_start", "seat": "red"}),
        )
        .await;
        let bid = json!({"type": "bid", "groups": [{"size": 2, "plan": "garden"}, {"size": 1, "plan": "bulletin"}]});
        let (a, b) = tokio::join!(
            app.submit(&created.id, Some(&red), bid.clone()),
            app.submit(&created.id, Some(&blue), bid.clone())
        );
        assert_eq!(a.status(), StatusCode::CREATED);
        assert_eq!(b.status(), StatusCode::CREATED);
        let game_id = uuid::Uuid::parse_str(&created.id).unwrap();
        let events = app.store.read_events(game_id, 0, None, None).await.unwrap();
        assert_eq!(verify_chain(&created.id, &events), Ok(()));
        assert_eq!(
            events
                .iter()
                .filter(|e| e.event_type == "bid_submitted")
                .count(),
            2
        );
        assert_eq!(
            events
                .iter()
                .filter(|e| e.event_type == "bids_revealed")
                .count(),
            1
        );
        let summary: Value = app.summary(&created.id).await;
        assert_eq!(summary["status"]["phase"], "playing");
    }
}

/// Each instance keeps its own fold of a game, which falls behind when the
/// other instance appends. Submissions alternate between two instances, each
/// reading the legal actions from the instance that just acted, so every
/// submission lands on a fold one action behind: it must still be decided
/// against the latest state, with no spurious refusal recorded.
#[tokio::test]
async fn two_instances_on_one_database_never_decide_on_a_stale_fold() {
    let first = TestApp::spawn().await;
    let second = first.another_instance().await;
    let created = first.create("treeblox", json!({}), 3).await;
    let game_id = uuid::Uuid::parse_str(&created.id).unwrap();
    let instances = [&first, &second];
    let mut played = 0;
    loop {
        let (reader, writer) = (instances[played % 2], instances[(played + 1) % 2]);
        let summary = reader.summary(&created.id).await;
        if summary["status"]["finished"].as_bool().unwrap() {
            break;
        }
        let seat = summary["status"]["to_act"][0].as_str().unwrap().to_string();
        let token = created.token(&seat).to_string();
        let legal = reader.legal_actions(&created.id, &token).await;
        let action = legal["actions"][played % legal["actions"].as_array().unwrap().len()].clone();
        // Every other submission names the version it expects, which only
        // the reader's (fresh) fold knows.
        let body = if played % 2 == 0 {
            json!({"action": action, "expected_version": legal["version"]})
        } else {
            json!({"action": action})
        };
        let response = writer
            .post_json(
                &format!("/v1/games/{}/actions", created.id),
                Some(&token),
                &body,
            )
            .await;
        let status = response.status();
        assert_eq!(
            status,
            StatusCode::CREATED,
            "{body}: {}",
            response.text().await.unwrap()
        );
        played += 1;
        assert!(played < 400, "the game did not end");
    }
    assert!(played > 10);
    assert!(first.store.rejections(game_id).await.unwrap().is_empty());
    let events = first
        .store
        .read_events(game_id, 0, None, None)
        .await
        .unwrap();
    verify_chain(&created.id, &events).unwrap();
    let states: Vec<Value> = join_all(instances.iter().map(|app| async {
        app.get(&format!("/v1/games/{}/state", created.id), None)
            .await
            .json::<Value>()
            .await
            .unwrap()
    }))
    .await;
    assert_eq!(states[0], states[1]);
    assert_eq!(states[0]["version"], events.len() as u64);
}

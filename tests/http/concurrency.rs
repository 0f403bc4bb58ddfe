//! Clients racing on one game: no lost or duplicated event.

use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::{json, Value};
use umpire_storage::store::verify_chain;

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

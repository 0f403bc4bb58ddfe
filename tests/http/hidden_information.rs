//! A seat sees only what it may: a secret bid stays with its seat and the
//! umpire until the reveal, in state, events and score alike.

use serde_json::{json, Value};

use crate::support::TestApp;

async fn everything_seen_by(app: &TestApp, id: &str, token: Option<&str>) -> String {
    let mut seen = String::new();
    for path in ["state", "events", "score"] {
        let body: Value = app
            .get(&format!("/v1/games/{id}/{path}"), token)
            .await
            .json()
            .await
            .unwrap();
        seen.push_str(&body.to_string());
    }
    seen
}

#[tokio::test]
async fn a_secret_bid_is_seen_only_by_its_seat_and_the_umpire_until_the_reveal() {
    let app = TestApp::spawn().await;
    let created = app.create("arboretum", json!({}), 8).await;
    let red = created.token("red").to_string();
    let blue = created.token("blue").to_string();
    app.submit(
        &created.id,
        Some(&red),
        json!({"type": "choose_start", "seat": "red"}),
    )
    .await;
    // A plan no other part of the state mentions yet: "bulletin" with size 4.
    let response = app
        .submit(
            &created.id,
            Some(&red),
            json!({"type": "bid", "groups": [{"size": 4, "plan": "bulletin"}]}),
        )
        .await;
    assert_eq!(response.status(), 201);
    let marker = "\"size\":4";
    assert!(everything_seen_by(&app, &created.id, Some(&red))
        .await
        .contains(marker));
    assert!(
        everything_seen_by(&app, &created.id, Some(&created.umpire_token))
            .await
            .contains(marker)
    );
    assert!(!everything_seen_by(&app, &created.id, Some(&blue))
        .await
        .contains(marker));
    assert!(!everything_seen_by(&app, &created.id, None)
        .await
        .contains(marker));
    // Blue's own dry run does not leak red's bid either.
    let check: Value = app
        .post_json(
            &format!("/v1/games/{}/actions/check", created.id),
            Some(&blue),
            &json!({"action": {"type": "bid", "groups": []}}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(check["legal"], true);
    let bid_shown_to_blue = check.to_string().contains(marker);
    // The dry run of blue's bid would reveal both bids, so blue would learn
    // red's bid only by actually bidding; a dry run must not show it early,
    // nor even which events it would cause (`round_ended` right after the
    // reveal would tell blue that red bid nothing).
    assert!(!bid_shown_to_blue, "{check}");
    assert_eq!(check["events"], json!([]), "{check}");
    // After blue bids, both bids are public.
    app.submit(
        &created.id,
        Some(&blue),
        json!({"type": "bid", "groups": []}),
    )
    .await;
    assert!(everything_seen_by(&app, &created.id, Some(&blue))
        .await
        .contains(marker));
    assert!(everything_seen_by(&app, &created.id, None)
        .await
        .contains(marker));
}

/// Every seq from 1 to the game's version, as `token` reads `/events`.
async fn sequence_seen_by(app: &TestApp, id: &str, token: Option<&str>) -> (Vec<u64>, Vec<Value>) {
    let mut seqs = Vec::new();
    let mut hidden = Vec::new();
    let mut after = 0;
    loop {
        let page: Value = app
            .get(
                &format!("/v1/games/{id}/events?after={after}&limit=1000"),
                token,
            )
            .await
            .json()
            .await
            .unwrap();
        for event in page["events"].as_array().unwrap() {
            seqs.push(event["seq"].as_u64().unwrap());
            if event["type"] == "hidden" {
                hidden.push(event.clone());
            }
        }
        match page["next_after"].as_u64() {
            Some(next) => after = next,
            None => return (seqs, hidden),
        }
    }
}

#[tokio::test]
async fn every_viewer_sees_a_gap_free_sequence_with_hidden_events_as_placeholders() {
    let app = TestApp::spawn().await;
    let mut placeholders = 0;
    for (game, options) in [
        ("arboretum", json!({})),
        ("treeblox", json!({})),
        ("draft_cider", json!({"players": 3})),
        ("flower_fields", json!({})),
    ] {
        let created = app.create(game, options, 21).await;
        app.play_to_the_end(&created, 21, 3_000).await;
        let version = app.stored_version(&created.id).await;
        let mut viewers: Vec<Option<&str>> = vec![None, Some(&created.umpire_token)];
        viewers.extend(
            created
                .seat_tokens
                .iter()
                .map(|(_, token)| Some(token.as_str())),
        );
        for token in viewers {
            let (seqs, hidden) = sequence_seen_by(&app, &created.id, token).await;
            assert_eq!(seqs, (1..=version).collect::<Vec<_>>(), "{game}: gaps");
            for event in &hidden {
                assert_eq!(event["payload"], json!({"type": "hidden"}), "{event}");
                assert!(event.get("action").is_none() && event.get("hash").is_none());
                assert!(
                    event["actor"] == "system" || event["actor"] == "hidden",
                    "{event}"
                );
            }
            if token == Some(created.umpire_token.as_str()) {
                assert!(hidden.is_empty(), "{game}: the umpire sees everything");
            }
            placeholders += hidden.len();
        }
    }
    assert!(placeholders > 0, "some events were hidden from someone");
}

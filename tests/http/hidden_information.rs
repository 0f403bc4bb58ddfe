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

//! Refused actions cannot flood the audit: identical refusals are counted on
//! one stored entry, and a token that keeps being refused is answered 429
//! with `Retry-After` until its budget refills; accepted actions go through.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};
use umpire_service::throttle::REFUSAL_BURST;

use crate::support::{assert_error, Created, TestApp};

async fn game(app: &TestApp) -> Created {
    // Red holds the DM Advantage: only red may choose the starting player.
    app.create("arboretum", json!({"dm_advantage": "red"}), 42)
        .await
}

fn out_of_turn() -> Value {
    json!({"type": "choose_start", "seat": "blue"})
}

#[tokio::test]
async fn a_refusal_sent_a_hundred_times_is_stored_once_with_its_count() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let (mut refused, mut throttled) = (0, 0);
    for _ in 0..100 {
        let response = app
            .submit(&created.id, Some(created.token("blue")), out_of_turn())
            .await;
        match response.status() {
            StatusCode::UNPROCESSABLE_ENTITY => refused += 1,
            StatusCode::TOO_MANY_REQUESTS => throttled += 1,
            other => panic!("unexpected {other}"),
        }
    }
    assert!(refused >= REFUSAL_BURST as u64, "{refused} refused");
    assert!(
        throttled > 0,
        "the burst of {REFUSAL_BURST} was exceeded unthrottled"
    );
    assert_eq!(refused + throttled, 100);
    let export: Value = app
        .get(
            &format!("/v1/games/{}/export", created.id),
            Some(&created.umpire_token),
        )
        .await
        .json()
        .await
        .unwrap();
    let rejections = export["rejections"].as_array().unwrap();
    assert_eq!(rejections.len(), 1, "{rejections:?}");
    assert_eq!(
        rejections[0]["repeats"], refused,
        "every 422 counted, no 429"
    );
    let audit: Value = app
        .get(
            &format!("/v1/games/{}/audit", created.id),
            Some(&created.umpire_token),
        )
        .await
        .json()
        .await
        .unwrap();
    let entry = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "rejected")
        .expect("the refusal is audited");
    assert_eq!(entry["repeats"], refused);
    assert_eq!(app.stored_version(&created.id).await, 1);
}

#[tokio::test]
async fn a_flood_of_refusals_is_a_429_with_retry_after_and_accepted_actions_still_go_through() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let blue = created.token("blue");
    let throttled = loop_until_throttled(&app, &created.id, blue).await;
    let retry_after: u64 = throttled
        .headers()
        .get("retry-after")
        .expect("Retry-After")
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    let body = assert_error(
        throttled,
        StatusCode::TOO_MANY_REQUESTS,
        "too_many_refusals",
    )
    .await;
    assert_eq!(body["details"]["retry_after_seconds"], retry_after);
    // The budget is blue's in this game: red's legal action is decided and stored.
    let response = app
        .submit(
            &created.id,
            Some(created.token("red")),
            json!({"type": "choose_start", "seat": "red"}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    // After Retry-After, blue's refusals are decided and answered again.
    tokio::time::sleep(Duration::from_secs(retry_after)).await;
    let response = app.submit(&created.id, Some(blue), out_of_turn()).await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
}

async fn loop_until_throttled(app: &TestApp, id: &str, token: &str) -> reqwest::Response {
    for _ in 0..(REFUSAL_BURST as usize * 3) {
        let response = app.submit(id, Some(token), out_of_turn()).await;
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            return response;
        }
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    }
    panic!("never throttled");
}

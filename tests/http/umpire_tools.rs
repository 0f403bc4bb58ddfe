//! The umpire's tools for settling a dispute on the record: looking as any
//! seat without its token (`?as=`), and a ruling written onto the log
//! (`record_ruling`, `docs/rules/umpire.md`), public, escaped and audited.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::streams::Sse;
use crate::support::{assert_error, Created, TestApp};

/// An arboretum game where red holds a secret bid: what red, blue, the
/// umpire and a spectator see of it differs.
async fn game_with_a_secret(app: &TestApp) -> Created {
    let created = app.create("arboretum", json!({}), 8).await;
    let red = created.token("red").to_string();
    let response = app
        .submit(
            &created.id,
            Some(&red),
            json!({"type": "choose_start", "seat": "red"}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let response = app
        .submit(
            &created.id,
            Some(&red),
            json!({"type": "bid", "groups": [{"size": 4, "plan": "bulletin"}]}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    created
}

async fn body(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let response = app.get(path, token).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response.json().await.unwrap()
}

#[tokio::test]
async fn the_umpire_looking_as_a_seat_is_answered_exactly_what_the_seat_is() {
    let app = TestApp::spawn().await;
    let created = game_with_a_secret(&app).await;
    let id = &created.id;
    let umpire = Some(created.umpire_token.as_str());
    let looks: [(&str, Option<&str>); 4] = [
        ("red", Some(created.token("red"))),
        ("blue", Some(created.token("blue"))),
        ("spectator", None),
        ("umpire", umpire),
    ];
    for (looking, own_token) in looks {
        for path in ["state", "events", "score", "state?at=2"] {
            let joiner = if path.contains('?') { '&' } else { '?' };
            let own = body(&app, &format!("/v1/games/{id}/{path}"), own_token).await;
            let looked = body(
                &app,
                &format!("/v1/games/{id}/{path}{joiner}as={looking}"),
                umpire,
            )
            .await;
            assert_eq!(looked, own, "{path} as {looking}");
        }
    }
    // The secret really differs between them, so the comparison means
    // something: blue's look does not hold red's bid.
    let as_blue = body(&app, &format!("/v1/games/{id}/events?as=blue"), umpire).await;
    let as_red = body(&app, &format!("/v1/games/{id}/events?as=red"), umpire).await;
    assert!(as_red.to_string().contains("\"size\":4"), "{as_red}");
    assert!(!as_blue.to_string().contains("\"size\":4"), "{as_blue}");

    // A dry run looked at as blue is decided as blue's own.
    let action = json!({"action": {"type": "bid", "groups": []}});
    let own: Value = app
        .post_json(
            &format!("/v1/games/{id}/actions/check"),
            Some(created.token("blue")),
            &action,
        )
        .await
        .json()
        .await
        .unwrap();
    let looked: Value = app
        .post_json(
            &format!("/v1/games/{id}/actions/check?as=blue"),
            umpire,
            &action,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(looked, own);

    // The stream, too: the first message as blue is blue's own.
    let mut own = Sse::of(
        app.client
            .get(app.url(&format!("/v1/games/{id}/stream")))
            .bearer_auth(created.token("blue"))
            .send()
            .await
            .unwrap(),
    );
    let mut looked = Sse::of(
        app.client
            .get(app.url(&format!("/v1/games/{id}/stream?as=blue")))
            .bearer_auth(&created.umpire_token)
            .send()
            .await
            .unwrap(),
    );
    for _ in 0..4 {
        let within = Duration::from_secs(60);
        let own = own.next_event(within).await.expect("an event").json();
        let looked = looked.next_event(within).await.expect("an event").json();
        assert_eq!(looked, own);
    }
}

#[tokio::test]
async fn only_the_umpire_may_look_as_another_seat() {
    let app = TestApp::spawn().await;
    let created = game_with_a_secret(&app).await;
    let id = &created.id;
    let blue = Some(created.token("blue"));
    for path in ["state", "events", "score", "stream"] {
        for looking in ["red", "umpire"] {
            let response = app
                .get(&format!("/v1/games/{id}/{path}?as={looking}"), blue)
                .await;
            assert_error(response, StatusCode::FORBIDDEN, "umpire_only").await;
        }
        // Looking as itself or as a spectator shows nothing new.
        for looking in ["blue", "spectator"] {
            let response = app
                .get(&format!("/v1/games/{id}/{path}?as={looking}"), blue)
                .await;
            assert_eq!(response.status(), StatusCode::OK, "{path} as {looking}");
        }
        let response = app
            .get(&format!("/v1/games/{id}/{path}?as=red"), None)
            .await;
        assert_error(response, StatusCode::UNAUTHORIZED, "missing_token").await;
    }
    let response = app
        .post_json(
            &format!("/v1/games/{id}/actions/check?as=red"),
            blue,
            &json!({"action": {"type": "bid", "groups": []}}),
        )
        .await;
    assert_error(response, StatusCode::FORBIDDEN, "umpire_only").await;
    // A name that is no seat of the game.
    for path in ["state", "events"] {
        let response = app
            .get(
                &format!("/v1/games/{id}/{path}?as=purple"),
                Some(&created.umpire_token),
            )
            .await;
        assert_error(response, StatusCode::BAD_REQUEST, "unknown_seat").await;
    }
}

/// Text that must be shown as text: markup, quotes, an ampersand, a line
/// break.
const UNSAFE_TEXT: &str = "<script>alert(\"ruled\")</script> & the card stays;\nplay on.";

#[tokio::test]
async fn a_ruling_is_recorded_public_escaped_chained_and_audited() {
    let app = TestApp::spawn().await;
    let created = game_with_a_secret(&app).await;
    let id = &created.id;
    let umpire = Some(created.umpire_token.as_str());
    let version = app.stored_version(id).await;
    let response = app
        .post_json(
            &format!("/v1/games/{id}/actions"),
            umpire,
            &json!({"action": {"type": "record_ruling", "text": UNSAFE_TEXT}, "expected_version": version}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let answer = response.text().await.unwrap();
    // As JSON text: quoted and escaped, never raw markup in a JSON string
    // a reader might paste into a page.
    assert!(
        answer.contains(r#"<script>alert(\"ruled\")</script> & the card stays;\nplay on."#),
        "{answer}"
    );
    assert_eq!(app.stored_version(id).await, version + 1);

    // Every viewer sees it, whole, at its version.
    for token in [
        umpire,
        Some(created.token("red")),
        Some(created.token("blue")),
        None,
    ] {
        let events = body(
            &app,
            &format!("/v1/games/{id}/events?after={version}"),
            token,
        )
        .await;
        let ruling = &events["events"][0];
        assert_eq!(ruling["seq"], version + 1, "{events}");
        assert_eq!(ruling["actor"], "umpire");
        assert_eq!(ruling["payload"]["type"], "ruling_recorded");
        assert_eq!(ruling["payload"]["text"], UNSAFE_TEXT);
        assert!(ruling["recorded_at"]
            .as_str()
            .is_some_and(|at| !at.is_empty()));
    }
    // The audit replays it as valid; the export carries it, chained.
    let report = body(&app, &format!("/v1/games/{id}/audit"), umpire).await;
    assert_eq!(report["valid"], true, "{report:#}");
    assert_eq!(report["chain"]["intact"], true);
    let exported: umpire_archive::Archive = app
        .get(&format!("/v1/games/{id}/export"), umpire)
        .await
        .json()
        .await
        .unwrap();
    let recorded = exported.events.last().unwrap();
    assert_eq!(recorded.event_type, "ruling_recorded");
    assert_eq!(recorded.payload["text"], UNSAFE_TEXT);
    assert_eq!(
        recorded.prev_hash,
        exported.events[exported.events.len() - 2].hash
    );
}

#[tokio::test]
async fn a_ruling_is_the_umpires_and_bounded() {
    let app = TestApp::spawn().await;
    let created = game_with_a_secret(&app).await;
    let id = &created.id;
    let ruling = |text: String| json!({"type": "record_ruling", "text": text});
    let response = app
        .submit(id, Some(created.token("red")), ruling("mine".into()))
        .await;
    assert_error(
        response,
        StatusCode::UNPROCESSABLE_ENTITY,
        "umpire.ruling_umpire_only",
    )
    .await;
    let umpire = Some(created.umpire_token.as_str());
    let response = app.submit(id, umpire, ruling(" \n\t".into())).await;
    assert_error(
        response,
        StatusCode::UNPROCESSABLE_ENTITY,
        "umpire.ruling_empty",
    )
    .await;
    let response = app.submit(id, umpire, ruling("x".repeat(2001))).await;
    let refused = assert_error(
        response,
        StatusCode::UNPROCESSABLE_ENTITY,
        "umpire.ruling_too_long",
    )
    .await;
    assert!(
        refused["rule_url"]
            .as_str()
            .is_some_and(|url| url.ends_with("/rules/umpire#s1")),
        "{refused}"
    );
    let response = app.submit(id, umpire, ruling("x".repeat(2000))).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    // Not a field more.
    let response = app
        .submit(
            id,
            umpire,
            json!({"type": "record_ruling", "text": "a", "seat": "red"}),
        )
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_action").await;
}

//! Who may do what: every endpoint against every kind of caller.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use umpire_api::ServiceOptions;

use crate::support::TestApp;

const ADMIN: &str = "admin-secret-for-tests";

#[derive(Debug, Clone, Copy, PartialEq)]
enum Caller {
    Nobody,
    Red,
    Blue,
    OtherGamesSeat,
    Umpire,
    Admin,
    Garbage,
}

use Caller::*;

const EVERYONE: [Caller; 7] = [Nobody, Red, Blue, OtherGamesSeat, Umpire, Admin, Garbage];

struct Case {
    method: Method,
    path: &'static str,
    body: Option<Value>,
    /// The expected status for each caller, in the order of `EVERYONE`.
    expected: [u16; 7],
}

fn cases() -> Vec<Case> {
    let read = [200, 200, 200, 401, 200, 401, 401];
    let acting = [401, 200, 200, 401, 200, 401, 401];
    vec![
        Case {
            method: Method::GET,
            path: "/v1/games/{id}",
            body: None,
            // Public, but a token sent with it is checked like any read's.
            expected: read,
        },
        Case {
            method: Method::GET,
            path: "/v1/games/{id}/state",
            body: None,
            expected: read,
        },
        Case {
            method: Method::GET,
            path: "/v1/games/{id}/state?at=1",
            body: None,
            expected: read,
        },
        Case {
            method: Method::GET,
            path: "/v1/games/{id}/events",
            body: None,
            expected: read,
        },
        Case {
            method: Method::GET,
            path: "/v1/games/{id}/score",
            body: None,
            expected: read,
        },
        Case {
            method: Method::GET,
            path: "/v1/games/{id}/legal-actions",
            body: None,
            expected: acting,
        },
        Case {
            method: Method::POST,
            path: "/v1/games/{id}/actions/check",
            body: Some(json!({"action": {"type": "choose_start", "seat": "red"}})),
            expected: acting,
        },
        // Only red holds the DM Advantage: blue and the umpire are refused by
        // the rules (422), strangers by authentication (401). Red goes last in
        // the run below, since its action changes the game.
        Case {
            method: Method::POST,
            path: "/v1/games/{id}/actions",
            body: Some(json!({"action": {"type": "choose_start", "seat": "red"}})),
            expected: [401, 201, 422, 401, 422, 401, 401],
        },
        // The audit and the export are the umpire's: a seat is known but not
        // allowed (403), strangers are not known (401).
        Case {
            method: Method::GET,
            path: "/v1/games/{id}/audit",
            body: None,
            expected: [401, 403, 403, 401, 200, 401, 401],
        },
        Case {
            method: Method::GET,
            path: "/v1/games/{id}/export",
            body: None,
            expected: [401, 403, 403, 401, 200, 401, 401],
        },
        Case {
            method: Method::POST,
            path: "/v1/games/{id}/what-if",
            body: Some(json!({"options": {}})),
            expected: [401, 403, 403, 401, 200, 401, 401],
        },
        // Scoring archives sent in the body reads nothing stored: open to all.
        Case {
            method: Method::POST,
            path: "/v1/scores",
            body: Some(json!([])),
            expected: [200; 7],
        },
        Case {
            method: Method::POST,
            path: "/v1/games/import",
            body: Some(json!({"not": "an archive"})),
            expected: [401, 401, 401, 401, 401, 400, 401],
        },
        Case {
            method: Method::POST,
            path: "/v1/games",
            body: Some(json!({"game": "treeblox"})),
            expected: [401, 401, 401, 401, 401, 201, 401],
        },
    ]
}

#[tokio::test]
async fn every_endpoint_answers_every_kind_of_caller_as_expected() {
    let app = TestApp::spawn_with(ServiceOptions {
        admin_token: Some(ADMIN.into()),
        ..ServiceOptions::default()
    })
    .await;
    let create = |app: &TestApp| {
        let request = app
            .client
            .post(app.url("/v1/games"))
            .bearer_auth(ADMIN)
            .json(&json!({"game": "arboretum", "seed": 3}));
        async move {
            let body: Value = request.send().await.unwrap().json().await.unwrap();
            body
        }
    };
    let game = create(&app).await;
    let other = create(&app).await;
    let id = game["id"].as_str().unwrap().to_string();
    let token_of = |caller: Caller| -> Option<String> {
        match caller {
            Nobody => None,
            Red => Some(game["seat_tokens"]["red"].as_str().unwrap().into()),
            Blue => Some(game["seat_tokens"]["blue"].as_str().unwrap().into()),
            OtherGamesSeat => Some(other["seat_tokens"]["red"].as_str().unwrap().into()),
            Umpire => Some(game["umpire_token"].as_str().unwrap().into()),
            Admin => Some(ADMIN.into()),
            Garbage => Some("0123456789abcdef".into()),
        }
    };
    for case in cases() {
        let path = case.path.replace("{id}", &id);
        // Red acts last: its accepted action moves the game on.
        let mut order: Vec<(Caller, u16)> = EVERYONE.iter().copied().zip(case.expected).collect();
        order.sort_by_key(|(caller, _)| *caller == Red);
        for (caller, expected) in order {
            let mut request = app.client.request(case.method.clone(), app.url(&path));
            if let Some(token) = token_of(caller) {
                request = request.bearer_auth(token);
            }
            if let Some(body) = &case.body {
                request = request.json(body);
            }
            let response = request.send().await.unwrap();
            let status = response.status();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            assert_eq!(
                status,
                StatusCode::from_u16(expected).unwrap(),
                "{} {path} as {caller:?}: {body}",
                case.method
            );
            if status.is_client_error() {
                assert!(
                    body["code"].is_string(),
                    "error envelope for {caller:?} on {path}: {body}"
                );
            }
            // Reads are redacted per caller: hash links for the umpire only.
            if case.path == "/v1/games/{id}/events" && status.is_success() {
                let has_hashes = body["events"][0].get("hash").is_some();
                assert_eq!(
                    has_hashes,
                    caller == Umpire,
                    "hash links shown to {caller:?}"
                );
            }
        }
    }
}

#[tokio::test]
async fn without_an_admin_token_game_creation_is_open() {
    let app = TestApp::spawn().await;
    let response = app
        .post_json("/v1/games", None, &json!({"game": "treeblox"}))
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn tokens_are_long_random_and_distinct() {
    let app = TestApp::spawn().await;
    let created = app.create("flower_fields", json!({}), 1).await;
    let mut tokens: Vec<String> = created.seat_tokens.iter().map(|(_, t)| t.clone()).collect();
    tokens.push(created.umpire_token.clone());
    for token in &tokens {
        // 32 random bytes, hex: 256 bits.
        assert_eq!(token.len(), 64);
        assert!(token.chars().all(|c| c.is_ascii_hexdigit()));
    }
    let count = tokens.len();
    tokens.sort();
    tokens.dedup();
    assert_eq!(tokens.len(), count);
}

#[tokio::test]
async fn metrics_are_exposed_for_prometheus() {
    let app = TestApp::spawn().await;
    let created = app.create("arboretum", json!({}), 2).await;
    app.submit(
        &created.id,
        Some(created.token("blue")),
        json!({"type": "choose_start", "seat": "blue"}),
    )
    .await;
    app.submit(
        &created.id,
        Some(created.token("red")),
        json!({"type": "choose_start", "seat": "red"}),
    )
    .await;
    let text = app.get("/metrics", None).await.text().await.unwrap();
    for metric in [
        "umpire_http_requests_total",
        "umpire_http_requests_duration_seconds_bucket",
        "umpire_appends_total 1",
        "umpire_rejected_actions_total{code=\"arboretum.not_your_turn\"} 1",
        "umpire_version_conflicts_total",
        "umpire_db_pool_connections",
    ] {
        assert!(text.contains(metric), "{metric} missing from:\n{text}");
    }
}

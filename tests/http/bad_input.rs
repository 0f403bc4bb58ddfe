//! Bad input gets a clear 4xx with a stable code, and the log is unchanged.

use reqwest::StatusCode;
use serde_json::json;
use umpire_api::ServiceOptions;
use umpire_arboretum::codes;

use crate::support::{assert_error, Created, TestApp};

async fn game(app: &TestApp) -> Created {
    app.create("arboretum", json!({}), 42).await
}

#[tokio::test]
async fn malformed_json_is_a_400_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let response = app
        .client
        .post(app.url(&format!("/v1/games/{}/actions", created.id)))
        .bearer_auth(created.token("red"))
        .header("content-type", "application/json")
        .body("{\"action\": ")
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "malformed_json").await;
    assert_eq!(app.stored_version(&created.id).await, 1);
}

#[tokio::test]
async fn a_body_not_sent_as_json_is_a_415() {
    let app = TestApp::spawn().await;
    let body = r#"{"game": "arboretum"}"#;
    for content_type in [Some("text/plain"), None] {
        let mut request = app.client.post(app.url("/v1/games")).body(body);
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let response = request.send().await.unwrap();
        assert_error(
            response,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_content_type",
        )
        .await;
    }
}

#[tokio::test]
async fn an_unknown_field_in_the_body_is_a_400() {
    let app = TestApp::spawn().await;
    let response = app
        .post_json(
            "/v1/games",
            None,
            &json!({"game": "arboretum", "colour": "red"}),
        )
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "malformed_json").await;
}

/// Every JSON body is an object: an array of the fields in order (which
/// serde alone would take) is a 400 on every route that reads one, and
/// does nothing.
#[tokio::test]
async fn a_body_that_is_an_array_not_an_object_is_a_400_everywhere() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let id = &created.id;
    let red = Some(created.token("red"));
    let umpire = Some(created.umpire_token.as_str());
    let routes: [(String, Option<&str>, serde_json::Value); 5] = [
        ("/v1/games".into(), None, json!(["arboretum", {}, 7])),
        (
            format!("/v1/games/{id}/actions"),
            red,
            json!([{"type": "pass"}, 1]),
        ),
        (
            format!("/v1/games/{id}/actions/check"),
            red,
            json!([{"type": "pass"}]),
        ),
        (format!("/v1/games/{id}/what-if"), umpire, json!([{}])),
        (
            "/v1/invitations/redeem".into(),
            None,
            json!(["an invitation code"]),
        ),
    ];
    for (path, token, body) in routes {
        let response = app.post_json(&path, token, &body).await;
        let error = assert_error(response, StatusCode::BAD_REQUEST, "malformed_json").await;
        assert!(
            error["message"].as_str().unwrap().contains("a JSON object"),
            "{path}: {error}"
        );
    }
    assert_eq!(app.stored_version(id).await, 1);
}

#[tokio::test]
async fn an_unknown_game_is_a_422() {
    let app = TestApp::spawn().await;
    let response = app
        .post_json("/v1/games", None, &json!({"game": "chess"}))
        .await;
    let body = assert_error(response, StatusCode::UNPROCESSABLE_ENTITY, "unknown_game").await;
    assert!(body["message"].as_str().unwrap().contains("chess"));
}

#[tokio::test]
async fn invalid_options_are_refused() {
    let app = TestApp::spawn().await;
    let response = app
        .post_json(
            "/v1/games",
            None,
            &json!({"game": "arboretum", "options": {"dm_advantage": "green"}}),
        )
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_options").await;
    let response = app
        .post_json(
            "/v1/games",
            None,
            &json!({"game": "draft_cider", "options": {"players": 7}}),
        )
        .await;
    assert_error(
        response,
        StatusCode::UNPROCESSABLE_ENTITY,
        umpire_draft_cider::codes::INVALID_PLAYERS.code,
    )
    .await;
}

#[tokio::test]
async fn an_unknown_game_id_is_a_404() {
    let app = TestApp::spawn().await;
    let id = uuid::Uuid::new_v4();
    for path in [
        format!("/v1/games/{id}"),
        format!("/v1/games/{id}/state"),
        format!("/v1/games/{id}/events"),
        format!("/v1/games/{id}/score"),
    ] {
        assert_error(
            app.get(&path, None).await,
            StatusCode::NOT_FOUND,
            "game_not_found",
        )
        .await;
    }
    // An id that is not even a UUID says so, with its own code.
    let body = assert_error(
        app.get("/v1/games/not-a-uuid/state", None).await,
        StatusCode::NOT_FOUND,
        "invalid_game_id",
    )
    .await;
    assert!(
        body["message"].as_str().unwrap().contains("not-a-uuid")
            || body["message"].as_str().unwrap().contains("UUID"),
        "{body}"
    );
    let response = app
        .submit(&id.to_string(), Some("x"), json!({"type": "start"}))
        .await;
    assert_error(response, StatusCode::NOT_FOUND, "game_not_found").await;
}

#[tokio::test]
async fn an_unknown_route_answers_with_the_envelope() {
    let app = TestApp::spawn().await;
    assert_error(
        app.get("/v2/nothing", None).await,
        StatusCode::NOT_FOUND,
        "route_not_found",
    )
    .await;
}

#[tokio::test]
async fn acting_without_a_token_is_a_401() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let response = app
        .submit(
            &created.id,
            None,
            json!({"type": "choose_start", "seat": "red"}),
        )
        .await;
    assert_eq!(
        response.headers().get("www-authenticate").unwrap(),
        "Bearer"
    );
    assert_error(response, StatusCode::UNAUTHORIZED, "missing_token").await;
    assert_eq!(app.stored_version(&created.id).await, 1);
}

#[tokio::test]
async fn a_wrong_or_foreign_token_is_a_401() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let other = game(&app).await;
    for token in ["not-a-token", other.token("red"), &other.umpire_token] {
        let response = app
            .submit(
                &created.id,
                Some(token),
                json!({"type": "choose_start", "seat": "red"}),
            )
            .await;
        assert_error(response, StatusCode::UNAUTHORIZED, "invalid_token").await;
        let response = app
            .get(&format!("/v1/games/{}/state", created.id), Some(token))
            .await;
        assert_error(response, StatusCode::UNAUTHORIZED, "invalid_token").await;
    }
    let response = app
        .client
        .get(app.url(&format!("/v1/games/{}/state", created.id)))
        .header("authorization", "Basic abc")
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::UNAUTHORIZED, "invalid_token").await;
    assert_eq!(app.stored_version(&created.id).await, 1);
}

#[tokio::test]
async fn an_action_for_the_wrong_seat_is_a_422_with_the_rule() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    // Red holds the DM Advantage: blue may not choose the starting player.
    let response = app
        .submit(
            &created.id,
            Some(created.token("blue")),
            json!({"type": "choose_start", "seat": "blue"}),
        )
        .await;
    let body = assert_error(
        response,
        StatusCode::UNPROCESSABLE_ENTITY,
        codes::NOT_YOUR_TURN_TO_CHOOSE_START.code,
    )
    .await;
    assert!(body["rule"].as_str().unwrap().starts_with("arboretum §"));
    assert_eq!(app.stored_version(&created.id).await, 1);
    // The refusal is kept for audit, outside the stream.
    let rejections = app
        .store
        .rejections(uuid::Uuid::parse_str(&created.id).unwrap())
        .await
        .unwrap();
    assert_eq!(rejections.len(), 1);
    assert_eq!(
        rejections[0].code,
        codes::NOT_YOUR_TURN_TO_CHOOSE_START.code
    );
    assert_eq!(rejections[0].actor, "seat:blue");
    assert_eq!(rejections[0].at_version, 1);
}

#[tokio::test]
async fn an_illegal_action_is_a_422_and_a_malformed_one_a_400() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let red = created.token("red").to_string();
    app.submit(
        &created.id,
        Some(&red),
        json!({"type": "choose_start", "seat": "red"}),
    )
    .await;
    let version = app.stored_version(&created.id).await;
    let response = app
        .submit(
            &created.id,
            Some(&red),
            json!({"type": "bid", "groups": [{"size": 1, "plan": "garden"}, {"size": 2, "plan": "garden"}]}),
        )
        .await;
    assert_error(
        response,
        StatusCode::UNPROCESSABLE_ENTITY,
        codes::BID_NOT_NON_INCREASING.code,
    )
    .await;
    let response = app
        .submit(&created.id, Some(&red), json!({"type": "fly"}))
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_action").await;
    let response = app
        .submit(
            &created.id,
            Some(&red),
            json!({"type": "plant", "card": "Z9", "cell": "D5"}),
        )
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_action").await;
    assert_eq!(app.stored_version(&created.id).await, version);
}

#[tokio::test]
async fn a_stale_expected_version_is_a_409_with_both_versions() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let red = created.token("red").to_string();
    let response = app
        .post_json(
            &format!("/v1/games/{}/actions", created.id),
            Some(&red),
            &json!({"action": {"type": "choose_start", "seat": "red"}, "expected_version": 0}),
        )
        .await;
    let body = assert_error(response, StatusCode::CONFLICT, "version_conflict").await;
    assert_eq!(body["details"], json!({"expected": 0, "actual": 1}));
    assert_eq!(app.stored_version(&created.id).await, 1);
    let response = app
        .post_json(
            &format!("/v1/games/{}/actions", created.id),
            Some(&red),
            &json!({"action": {"type": "choose_start", "seat": "red"}, "expected_version": 1}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn a_huge_body_is_a_413_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let huge = "x".repeat(200_000);
    let response = app
        .submit(
            &created.id,
            Some(created.token("red")),
            json!({"type": "choose_start", "seat": huge}),
        )
        .await;
    assert_error(response, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large").await;
    assert_eq!(app.stored_version(&created.id).await, 1);
}

#[tokio::test]
async fn bad_query_parameters_are_400s() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    for (path, code) in [
        (
            format!("/v1/games/{}/state?at=abc", created.id),
            "invalid_query",
        ),
        (
            format!("/v1/games/{}/state?at=99", created.id),
            "version_out_of_range",
        ),
        (
            format!("/v1/games/{}/score?at=-1", created.id),
            "invalid_query",
        ),
        (
            format!("/v1/games/{}/events?limit=0", created.id),
            "invalid_limit",
        ),
        (
            format!("/v1/games/{}/events?limit=5000", created.id),
            "invalid_limit",
        ),
        (
            format!("/v1/games/{}/state?version=1", created.id),
            "invalid_query",
        ),
    ] {
        assert_error(app.get(&path, None).await, StatusCode::BAD_REQUEST, code).await;
    }
}

#[tokio::test]
async fn an_idempotency_key_replays_the_first_result_and_refuses_another_body() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let path = format!("/v1/games/{}/actions", created.id);
    let send = |body: serde_json::Value| {
        app.client
            .post(app.url(&path))
            .bearer_auth(created.token("red"))
            .header("Idempotency-Key", "retry-1")
            .json(&body)
            .send()
    };
    let body = json!({"action": {"type": "choose_start", "seat": "red"}});
    let first = send(body.clone()).await.unwrap();
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: serde_json::Value = first.json().await.unwrap();
    let version = app.stored_version(&created.id).await;
    let second = send(body).await.unwrap();
    assert_eq!(second.status(), StatusCode::CREATED);
    assert_eq!(second.headers().get("idempotent-replayed").unwrap(), "true");
    let second: serde_json::Value = second.json().await.unwrap();
    assert_eq!(second["version"], first["version"]);
    assert_eq!(second["events"], first["events"]);
    assert_eq!(app.stored_version(&created.id).await, version);
    let other = send(json!({"action": {"type": "choose_start", "seat": "blue"}}))
        .await
        .unwrap();
    assert_error(
        other,
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency_key_reused",
    )
    .await;
    assert_eq!(app.stored_version(&created.id).await, version);
}

#[tokio::test]
async fn deeply_nested_json_is_a_400_not_a_crash() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let nested = format!("{{\"action\": {}1{}}}", "[".repeat(5000), "]".repeat(5000));
    let response = app
        .client
        .post(app.url(&format!("/v1/games/{}/actions", created.id)))
        .bearer_auth(created.token("red"))
        .header("content-type", "application/json")
        .body(nested)
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "malformed_json").await;
    assert_eq!(app.stored_version(&created.id).await, 1);
    assert_eq!(app.get("/healthz", None).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn an_exhausted_pool_answers_503_with_retry_after_instead_of_hanging() {
    // The pool waits as the service's own does (the other tests' wait longer).
    let app = TestApp::spawn_with_pool(
        umpire_storage::PoolTimeouts::SERVICE,
        ServiceOptions::default(),
    )
    .await;
    let created = game(&app).await;
    // Hold every connection of the server's pool (the test shares it).
    let mut held = Vec::new();
    while held.len() < app.store.pool().status().max_size {
        held.push(app.store.pool().get().await.unwrap());
    }
    let started = std::time::Instant::now();
    let response = app
        .get(&format!("/v1/games/{}/state", created.id), None)
        .await;
    // Without the bound the request would wait until `held` is dropped,
    // which is after this: a ceiling far above the pool's wait still tells
    // the two apart, however slowly a busy machine answers.
    assert!(
        started.elapsed() < umpire_storage::POOL_WAIT * 20,
        "bounded wait"
    );
    assert_eq!(response.headers().get("retry-after").unwrap(), "1");
    assert_error(response, StatusCode::SERVICE_UNAVAILABLE, "unavailable").await;
    let ready = app.get("/readyz", None).await;
    assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
    drop(held);
    let response = app
        .get(&format!("/v1/games/{}/state", created.id), None)
        .await;
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn an_action_with_nul_characters_is_refused_and_recorded_not_a_500() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let response = app
        .submit(
            &created.id,
            Some(&created.umpire_token),
            json!({"type": "timeout", "seat": 189, "\u{0}key": ["nul\u{0}inside"]}),
        )
        .await;
    assert!(response.status().is_client_error(), "{}", response.status());
    let rejections = app
        .store
        .rejections(uuid::Uuid::parse_str(&created.id).unwrap())
        .await
        .unwrap();
    assert_eq!(rejections.len(), 1);
    assert!(!rejections[0].action.to_string().contains("\\u0000"));
    assert_eq!(app.stored_version(&created.id).await, 1);
}

#[tokio::test]
async fn a_body_that_stops_arriving_is_answered_408_and_the_connection_closed() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let head = format!(
        "POST /v1/games/{}/actions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n",
        created.id,
        created.token("red")
    );
    let started = std::time::Instant::now();
    let answer = app.stalled_body(&head, br#"{"action": {"type": "#).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"code\":\"body_timeout\""), "{answer}");
    assert!(started.elapsed() >= umpire_api::body_deadline::BODY_IDLE);
    assert_eq!(app.stored_version(&created.id).await, 1);
}

#[tokio::test]
async fn a_seed_beyond_the_documented_int64_is_refused() {
    let app = TestApp::spawn().await;
    let response = app
        .post_json(
            "/v1/games",
            None,
            &json!({"game": "arboretum", "seed": 9_223_372_036_854_775_808u64}),
        )
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_seed").await;
    let largest = app
        .post_json(
            "/v1/games",
            None,
            &json!({"game": "arboretum", "seed": 9_223_372_036_854_775_807u64}),
        )
        .await;
    assert_eq!(largest.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn the_summary_checks_a_token_like_every_other_read() {
    let app = TestApp::spawn().await;
    let created = game(&app).await;
    let path = format!("/v1/games/{}", created.id);
    assert_error(
        app.get(&path, Some("not-a-token")).await,
        StatusCode::UNAUTHORIZED,
        "invalid_token",
    )
    .await;
    assert_eq!(app.get(&path, None).await.status(), StatusCode::OK);
    assert_eq!(
        app.get(&path, Some(created.token("red"))).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn answers_carrying_tokens_or_secrets_are_never_cached() {
    let app = TestApp::spawn().await;
    let created = app
        .post_json("/v1/games", None, &json!({"game": "arboretum", "seed": 1}))
        .await;
    assert_eq!(created.headers().get("cache-control").unwrap(), "no-store");
    let created: serde_json::Value = created.json().await.unwrap();
    let red = created["seat_tokens"]["red"].as_str().unwrap();
    let id = created["id"].as_str().unwrap();
    for path in ["state", "events", "legal-actions", "score"] {
        let response = app.get(&format!("/v1/games/{id}/{path}"), Some(red)).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(
            response.headers().get("cache-control").unwrap(),
            "no-store",
            "{path}"
        );
    }
    let refused = app.get(&format!("/v1/games/{id}/state"), Some("x")).await;
    assert_eq!(refused.headers().get("cache-control").unwrap(), "no-store");
}

#[tokio::test]
async fn an_archive_body_that_stops_arriving_is_answered_408_too() {
    let app = TestApp::spawn().await;
    let head = "POST /v1/scores HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n\
                Content-Length: 100000\r\n\r\n";
    let answer = app.stalled_body(head, b"{\"format\": ").await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"code\":\"body_timeout\""), "{answer}");
}

#[tokio::test]
async fn archive_bodies_past_the_instances_bound_wait_then_are_told_busy() {
    use tokio::io::AsyncWriteExt;
    let app = TestApp::spawn().await;
    let address = app.address.trim_start_matches("http://").to_string();
    // Every turn at archive bodies is held by an upload that trickles in a
    // byte every 2 s: slow, never stalled long enough to time out.
    let mut uploads = Vec::new();
    for _ in 0..umpire_api::routes::archives::ARCHIVE_BODIES_AT_ONCE {
        let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
        stream
            .write_all(
                b"POST /v1/scores HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n\
                  Content-Length: 1000\r\n\r\n",
            )
            .await
            .unwrap();
        uploads.push(stream);
    }
    let trickle = tokio::spawn(async move {
        for _ in 0..8 {
            for stream in &mut uploads {
                stream.write_all(b" ").await.unwrap();
            }
            tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        }
        uploads
    });
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let response = app.post_json_lines("/v1/scores", None, "{}\n".into()).await;
    assert!(response.headers().contains_key("retry-after"));
    assert_error(response, StatusCode::SERVICE_UNAVAILABLE, "busy").await;
    drop(trickle.await.unwrap());
    // The turns are free again once those uploads are gone.
    let response = app.post_json_lines("/v1/scores", None, "{}\n".into()).await;
    assert_eq!(response.status(), StatusCode::OK);
}

//! The archive endpoints through the real server on a real port.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::archive_support::{first_action_seq, rechain, simulated};
use crate::support::{assert_error, TestApp};

#[tokio::test]
async fn audit_and_export_are_for_the_umpire_only() {
    let app = TestApp::spawn().await;
    let archive = simulated("draft_cider", 4);
    let (status, created) = app.import(&archive).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap();
    let umpire = created["umpire_token"].as_str().unwrap();
    let seat = created["seat_tokens"]["0"].as_str().unwrap();
    for path in [
        format!("/v1/games/{id}/audit"),
        format!("/v1/games/{id}/export"),
    ] {
        let response = app.get(&path, None).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(
            response.json::<Value>().await.unwrap()["code"],
            "missing_token"
        );
        let response = app.get(&path, Some("not-a-token")).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{path}");
        let response = app.get(&path, Some(seat)).await;
        assert_error(response, StatusCode::FORBIDDEN, "umpire_only").await;
        let response = app.get(&path, Some(umpire)).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
    }
    let unknown = uuid::Uuid::new_v4();
    let response = app
        .get(&format!("/v1/games/{unknown}/audit"), Some(umpire))
        .await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);

    let report: Value = app
        .get(&format!("/v1/games/{id}/audit"), Some(umpire))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(report["valid"], true);
    assert_eq!(report["chain"]["intact"], true);
    assert_eq!(report["version"], archive.version());
    let exported: umpire_archive::Archive = app
        .get(&format!("/v1/games/{id}/export"), Some(umpire))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(exported.events, archive.events);
}

#[tokio::test]
async fn a_refused_action_shows_up_in_the_audit_at_its_version() {
    let app = TestApp::spawn().await;
    let created: Value = app
        .post(
            "/v1/games",
            None,
            json!({"game": "treeblox", "seed": 3}).to_string(),
        )
        .await
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap();
    let umpire = created["umpire_token"].as_str().unwrap();
    // Something no rule accepts, from a seat.
    let (seat, token) = created["seat_tokens"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .unwrap();
    let response = app
        .post(
            &format!("/v1/games/{id}/actions"),
            Some(token.as_str().unwrap()),
            json!({"action": {"type": "grow", "placements": [
                {"kind": "leaf", "cell": [0, 0, 0]},
                {"kind": "leaf", "cell": [1, 0, 0]},
            ]}})
            .to_string(),
        )
        .await;
    let refusal_status = response.status();
    assert!(
        refusal_status == StatusCode::UNPROCESSABLE_ENTITY
            || refusal_status == StatusCode::BAD_REQUEST,
        "{refusal_status}"
    );
    let report: Value = app
        .get(&format!("/v1/games/{id}/audit"), Some(umpire))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(report["valid"], true, "{report:#}");
    if refusal_status == StatusCode::UNPROCESSABLE_ENTITY {
        let entries = report["entries"].as_array().unwrap();
        let rejected = entries
            .iter()
            .find(|e| e["kind"] == "rejected")
            .expect("the refusal is in the audit");
        assert_eq!(rejected["actor"], format!("seat:{seat}"));
        assert_eq!(rejected["at_version"], report["version"]);
        assert!(rejected["violation"]["code"]
            .as_str()
            .unwrap()
            .starts_with("treeblox."));
        assert!(rejected["before"]["spectator"].is_object());
    }
}

#[tokio::test]
async fn an_invalid_archive_is_refused_with_422_naming_the_first_failing_event() {
    let app = TestApp::spawn().await;
    let mut archive = simulated("flower_fields", 3);
    let seq = first_action_seq(&archive) + 2;
    archive.events[seq - 1].payload["forged"] = json!(true);
    let (status, body) = app.import(&archive).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["code"], "archive_hash_mismatch");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("Event {seq} ")),
        "{body}"
    );
    rechain(&mut archive);
    let (status, body) = app.import(&archive).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["code"], "archive_event_differs");
    // Nothing partial was stored.
    let response = app
        .get(&format!("/v1/games/{}", archive.game_id), None)
        .await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let (status, body) = app.import(&simulated("flower_fields", 3)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let response = app.post("/v1/games/import", None, "{not json".into()).await;
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_archive").await;
}

#[tokio::test]
async fn scores_are_computed_from_the_body_without_storing_anything() {
    let app = TestApp::spawn().await;
    let good = simulated("arboretum", 5);
    let body = format!(
        "{}\nnot an archive\n{}\n",
        good.to_json_line(),
        simulated("treeblox", 5).to_json_line()
    );
    let response = app.post("/v1/scores", None, body).await;
    assert_eq!(response.status(), StatusCode::OK);
    let scored: Value = response.json().await.unwrap();
    assert_eq!(scored["games"], 3);
    assert_eq!(scored["errors"], 1);
    let rows = scored["rows"].as_array().unwrap();
    assert_eq!(rows[0]["game_id"], good.game_id.to_string());
    assert_eq!(rows[0]["code"], Value::Null);
    assert!(rows[1]["error"].is_string());
    assert_eq!(rows[1]["code"], "invalid_archive");
    assert_eq!(rows[2]["game"], "treeblox");
    let summary = umpire_archive::replay(&crate::archive_support::registry(), &good, |_| {})
        .unwrap()
        .game
        .state
        .summary();
    assert_eq!(
        rows[0]["totals"],
        serde_json::to_value(&summary.totals).unwrap()
    );
    // An array body works too, and nothing was stored.
    let response = app
        .post(
            "/v1/scores",
            None,
            serde_json::to_string(&vec![&good]).unwrap(),
        )
        .await;
    assert_eq!(response.json::<Value>().await.unwrap()["games"], 1);
    let response = app.get(&format!("/v1/games/{}", good.game_id), None).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn scores_check_each_archives_hash_chain_unless_the_caller_trusts_it() {
    let app = TestApp::spawn().await;
    let good = simulated("treeblox", 3);
    let mut forged = simulated("treeblox", 4);
    // The result forged where the game ended: the winner changed.
    let ended = forged.events.last_mut().unwrap();
    assert_eq!(ended.event_type, "game_ended");
    ended.payload["winner"] = match ended.payload["winner"].as_str() {
        Some("dark") => "light".into(),
        _ => "dark".into(),
    };
    // Hashed again by a forger who knows the scheme: the chain holds, and
    // only a replay (audit, import) can tell.
    let mut rechained = forged.clone();
    rechain(&mut rechained);
    let body = [&good, &forged, &rechained]
        .map(|archive| archive.to_json_line())
        .join("\n");

    let response = app.post_json_lines("/v1/scores", None, body.clone()).await;
    assert_eq!(response.status(), StatusCode::OK);
    let verified: Value = response.json().await.unwrap();
    assert_eq!(verified["errors"], 1, "{verified:#}");
    let rows = verified["rows"].as_array().unwrap();
    assert_eq!(rows[0]["error"], Value::Null, "{:#}", rows[0]);
    assert_eq!(rows[1]["code"], "archive_hash_mismatch", "{:#}", rows[1]);
    assert_eq!(rows[1]["game_id"], forged.game_id.to_string());
    assert_eq!(rows[1]["game"], "treeblox");
    assert_eq!(rows[1]["final"], Value::Null);
    let error = rows[1]["error"].as_str().unwrap();
    assert!(
        error.starts_with(&format!(
            "the hash chain does not hold (hash_mismatch) at event {}: ",
            forged.version()
        )),
        "{error}"
    );
    assert_eq!(rows[2]["error"], Value::Null, "{:#}", rows[2]);

    // Trusted, each is folded as it stands: the forged result is scored.
    let response = app
        .post_json_lines("/v1/scores?trust_chain=true", None, body.clone())
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let trusted: Value = response.json().await.unwrap();
    assert_eq!(trusted["errors"], 0, "{trusted:#}");
    let trusted_rows = trusted["rows"].as_array().unwrap();
    assert_eq!(trusted_rows[0], rows[0]);
    assert_eq!(trusted_rows[1]["winners"], trusted_rows[2]["winners"]);
    assert_eq!(trusted_rows[2], rows[2]);
    // `trust_chain=false` is the default said aloud.
    let response = app
        .post_json_lines("/v1/scores?trust_chain=false", None, body.clone())
        .await;
    assert_eq!(response.json::<Value>().await.unwrap(), verified);

    for query in ["trust_chain=yes", "trust=true"] {
        let response = app
            .post_json_lines(&format!("/v1/scores?{query}"), None, body.clone())
            .await;
        assert_error(response, StatusCode::BAD_REQUEST, "invalid_query").await;
    }
}

#[tokio::test]
async fn what_if_is_for_the_umpire_and_compares_final_scores() {
    let app = TestApp::spawn().await;
    let archive = simulated("draft_cider", 6);
    let (_, created) = app.import(&archive).await;
    let id = created["id"].as_str().unwrap();
    let path = format!("/v1/games/{id}/what-if");
    let body = json!({"options": {"easy": true}}).to_string();
    let response = app.post(&path, None, body.clone()).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let response = app
        .post(&path, Some(created["umpire_token"].as_str().unwrap()), body)
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let report: Value = response.json().await.unwrap();
    assert_eq!(report["alternative_options"]["easy"], true);
    assert!(report["changes"].as_object().unwrap().len() >= 2);
}

/// Many archives in one request (JSON Lines): one answer line per archive,
/// each valid game stored whole with new tokens, each bad one refused alone
/// (a forged event names its `seq`; a line that is not an archive, a game
/// already stored), and the others go on.
#[tokio::test]
async fn many_archives_are_imported_from_json_lines_one_answer_line_each() {
    let app = TestApp::spawn().await;
    let stored_before = simulated("treeblox", 21);
    assert_eq!(app.import(&stored_before).await.0, StatusCode::CREATED);
    let good: Vec<_> = (0..70)
        .map(|seed| {
            simulated(
                ["arboretum", "draft_cider", "treeblox", "flower_fields"][seed % 4],
                100 + seed as u64,
            )
        })
        .collect();
    let mut forged = simulated("flower_fields", 7);
    forged.events[4].payload["forged"] = json!(true);
    let mut lines: Vec<String> = good[..40].iter().map(|a| a.to_json_line()).collect();
    lines.push(forged.to_json_line());
    lines.push("{\"not\": \"an archive\"}".into());
    lines.push(stored_before.to_json_line());
    lines.extend(good[40..].iter().map(|a| a.to_json_line()));
    let body = lines.join("\n") + "\n";
    let response = app.post_json_lines("/v1/games/import", None, body).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "application/x-ndjson");
    let text = response.text().await.unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len(), 73, "one line per archive");
    let answer = |line: usize| {
        lines
            .iter()
            .find(|answer| answer["source"] == format!("body:{line}"))
            .unwrap_or_else(|| panic!("no answer for line {line}"))
    };
    assert_eq!(answer(41)["refused"]["details"]["seq"], 5, "{}", answer(41));
    assert_eq!(answer(42)["refused"]["code"], "invalid_archive");
    assert_eq!(answer(43)["refused"]["code"], "game_already_exists");
    let imported: Vec<&Value> = lines
        .iter()
        .filter(|a| a.get("imported").is_some())
        .collect();
    assert_eq!(imported.len(), 70);
    for archive in [&good[0], &good[69]] {
        let created = imported
            .iter()
            .find(|a| a["imported"]["id"] == archive.game_id.to_string())
            .expect("imported");
        let token = created["imported"]["umpire_token"].as_str().unwrap();
        let exported: Value = app
            .get(
                &format!("/v1/games/{}/export", archive.game_id),
                Some(token),
            )
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(
            exported["events"],
            serde_json::to_value(&archive.events).unwrap(),
            "stored exactly as recorded"
        );
    }
}

/// Importing many at once is creating games: the admin token when one is
/// set, and the same body bounds as one archive.
#[tokio::test]
async fn importing_many_needs_the_admin_token_and_is_bounded() {
    let app = TestApp::spawn_with(umpire_api::ServiceOptions {
        admin_token: Some("admin-secret".into()),
        ..umpire_api::ServiceOptions::default()
    })
    .await;
    let body = simulated("treeblox", 3).to_json_line() + "\n";
    let refused = app
        .post_json_lines("/v1/games/import", None, body.clone())
        .await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let too_large = app
        .post_json_lines(
            "/v1/games/import",
            Some("admin-secret"),
            body.repeat(umpire_api::routes::archives::MAX_ARCHIVE_BYTES / body.len() + 1),
        )
        .await;
    assert_eq!(too_large.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let accepted = app
        .post_json_lines("/v1/games/import", Some("admin-secret"), body)
        .await;
    assert_eq!(accepted.status(), StatusCode::OK);
    assert!(accepted.text().await.unwrap().contains("\"imported\""));
}

/// The importer answers in the body's order, across batches, whatever was
/// refused at once and whatever waited to be stored.
#[tokio::test]
async fn a_json_lines_import_answers_in_the_bodys_order_across_batches() {
    let app = TestApp::spawn().await;
    let lines: Vec<String> = (0..150)
        .map(|index| {
            if index % 7 == 3 {
                format!("{{\"not\": \"an archive\", \"line\": {index}}}")
            } else {
                simulated(["arboretum", "treeblox"][index % 2], 500 + index as u64).to_json_line()
            }
        })
        .collect();
    let response = app
        .post_json_lines("/v1/games/import", None, lines.join("\n") + "\n")
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let text = response.text().await.unwrap();
    let answers: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let sources: Vec<String> = answers
        .iter()
        .map(|answer| answer["source"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = (1..=150).map(|line| format!("body:{line}")).collect();
    assert_eq!(sources, expected);
    for (index, answer) in answers.iter().enumerate() {
        assert_eq!(
            answer.get("refused").is_some(),
            index % 7 == 3,
            "line {}: {answer}",
            index + 1
        );
    }
}

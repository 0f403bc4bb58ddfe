//! Error messages speak in one voice (each a sentence, checked for every
//! error the suite meets by `support::assert_error`) and name what was
//! asked: a spectator is told what needs the token it did not send.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::{assert_error, TestApp};

#[tokio::test]
async fn a_spectator_is_told_which_request_needs_a_seat_or_umpire_token() {
    let app = TestApp::spawn().await;
    let game = app.create("arboretum", json!({}), 1).await;
    let action = json!({"action": {"type": "choose_start", "seat": "red"}});
    let asked = [
        (
            app.get(&format!("/v1/games/{}/legal-actions", game.id), None)
                .await,
            "Listing legal actions",
        ),
        (
            app.post_json(
                &format!("/v1/games/{}/actions/check", game.id),
                None,
                &action,
            )
            .await,
            "Checking an action",
        ),
        (
            app.post_json(&format!("/v1/games/{}/actions", game.id), None, &action)
                .await,
            "Submitting an action",
        ),
    ];
    for (response, named) in asked {
        let body = assert_error(response, StatusCode::UNAUTHORIZED, "missing_token").await;
        let message = body["message"].as_str().unwrap();
        assert!(
            message.starts_with(named) && message.contains("seat or umpire token"),
            "{message}"
        );
    }
}

#[tokio::test]
async fn messages_that_quote_a_cause_are_still_sentences() {
    let app = TestApp::spawn().await;
    let game = app.create("arboretum", json!({}), 1).await;
    let red = game.token("red");
    let refused = [
        (
            app.get(&format!("/v1/games/{}/events?limit=x", game.id), None)
                .await,
            StatusCode::BAD_REQUEST,
            "invalid_query",
        ),
        (
            app.get("/v1/games/not-a-uuid", None).await,
            StatusCode::NOT_FOUND,
            "invalid_game_id",
        ),
        (
            app.submit(&game.id, Some(red), json!({"type": "no_such_action"}))
                .await,
            StatusCode::BAD_REQUEST,
            "invalid_action",
        ),
        (
            app.post_json(
                "/v1/games",
                None,
                &json!({"game": "arboretum", "options": {"dm_advantage": 7}}),
            )
            .await,
            StatusCode::BAD_REQUEST,
            "invalid_options",
        ),
        (
            app.post_json(
                &format!("/v1/games/{}/actions", game.id),
                Some(red),
                &json!({"action": {"type": "choose_start", "seat": "red"}, "expected_version": 0}),
            )
            .await,
            StatusCode::CONFLICT,
            "version_conflict",
        ),
    ];
    for (response, status, code) in refused {
        assert_error(response, status, code).await;
    }
}

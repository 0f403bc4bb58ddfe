//! Seats by invitation through the real server: a game's creation answers
//! one invitation per seat, redeemed once for a seat's token; the umpire's
//! reissue revokes a seat's tokens, is recorded in the log without any
//! token or code, and audits, exports and re-imports clean.

use reqwest::StatusCode;
use serde_json::{json, Value};
use umpire_api::startup::ServiceOptions;

use crate::streams::Sse;
use crate::support::{assert_error, TestApp};

/// Creates a Treeblox game: the answer as JSON.
async fn create(app: &TestApp, token: Option<&str>) -> Value {
    let response = app
        .post_json("/v1/games", token, &json!({"game": "treeblox", "seed": 7}))
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    response.json().await.unwrap()
}

async fn redeem(app: &TestApp, code: &str) -> reqwest::Response {
    app.post_json("/v1/invitations/redeem", None, &json!({"code": code}))
        .await
}

async fn reissue(app: &TestApp, id: &str, seat: &str, token: Option<&str>) -> reqwest::Response {
    app.post_json(
        &format!("/v1/games/{id}/seats/{seat}/reissue"),
        token,
        &json!(null),
    )
    .await
}

/// The first legal action of `token`'s seat, submitted: its status.
async fn play_first_legal(app: &TestApp, id: &str, token: &str) -> StatusCode {
    let legal = app.legal_actions(id, token).await;
    let action = legal["actions"][0].clone();
    assert!(action.is_object(), "{legal}");
    app.submit(id, Some(token), action).await.status()
}

/// A legal action of `token`'s seat that places something (two passes, or
/// growths of nothing, end a game), if it is to act.
async fn growing_action(app: &TestApp, id: &str, token: &str) -> Option<Value> {
    let legal = app.legal_actions(id, token).await;
    legal["actions"]
        .as_array()?
        .iter()
        .find(|action| {
            action["placements"]
                .as_array()
                .is_some_and(|placed| !placed.is_empty())
        })
        .cloned()
}

/// A growing action of `token`'s seat once it is to act, `other` growing
/// meanwhile.
async fn next_action_of(app: &TestApp, id: &str, token: &str, other: &str) -> Value {
    for _ in 0..6 {
        if let Some(action) = growing_action(app, id, token).await {
            return action;
        }
        let action = growing_action(app, id, other).await.expect("someone acts");
        let response = app.submit(id, Some(other), action).await;
        assert_eq!(response.status(), StatusCode::CREATED);
    }
    panic!("{token} is never to act");
}

fn code_of(created: &Value, seat: &str) -> String {
    let invitation = &created["invitations"][seat];
    let code = invitation["code"].as_str().unwrap().to_string();
    assert_eq!(invitation["link"], format!("/join#{code}"));
    assert_eq!(invitation["seat"], seat);
    code
}

#[tokio::test]
async fn an_invitation_is_redeemed_once_for_a_token_that_plays_its_seat() {
    let app = TestApp::spawn().await;
    let created = create(&app, None).await;
    let id = created["id"].as_str().unwrap();
    // One invitation per seat: a code of 64 hex digits, its game's id first.
    let code = code_of(&created, "dark");
    assert_eq!(code.len(), 64);
    assert!(code.starts_with(&id.replace('-', "")));
    assert_ne!(code, code_of(&created, "light"));
    // The creation's token still works for API clients.
    assert!(created["seat_tokens"]["dark"].is_string());

    let response = redeem(&app, &code).await;
    assert_eq!(response.status(), StatusCode::OK);
    let redeemed: Value = response.json().await.unwrap();
    assert_eq!(redeemed["game_id"], id);
    assert_eq!(redeemed["seat"], "dark");
    let token = redeemed["token"].as_str().unwrap();
    assert_ne!(token, created["seat_tokens"]["dark"]);
    assert_eq!(play_first_legal(&app, id, token).await, StatusCode::CREATED);
    let summary: Value = app
        .get(&format!("/v1/games/{id}"), Some(token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(summary["viewer"], "seat:dark");

    // A second redemption is refused, plainly.
    assert_error(
        redeem(&app, &code).await,
        StatusCode::GONE,
        "invitation_used",
    )
    .await;
    // A code nobody made, or not even shaped like one.
    let unknown = format!("{}{}", &code[..32], "0".repeat(32));
    assert_error(
        redeem(&app, &unknown).await,
        StatusCode::NOT_FOUND,
        "invitation_unknown",
    )
    .await;
    assert_error(
        redeem(&app, "nonsense").await,
        StatusCode::NOT_FOUND,
        "invitation_unknown",
    )
    .await;
}

#[tokio::test]
async fn a_reissue_is_the_umpires_revokes_the_old_token_and_leaves_no_secret_in_the_log() {
    let app = TestApp::spawn().await;
    let created = create(&app, None).await;
    let id = created["id"].as_str().unwrap();
    let umpire = created["umpire_token"].as_str().unwrap();
    let dark = created["seat_tokens"]["dark"].as_str().unwrap();
    let light = created["seat_tokens"]["light"].as_str().unwrap();
    let first_code = code_of(&created, "dark");

    // A seat may not reissue, by the rule the seats page names (for its own
    // seat too), nor a spectator.
    for seat in ["dark", "light", "purple"] {
        assert_error(
            reissue(&app, id, seat, Some(light)).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "seats.umpire_only",
        )
        .await;
    }
    assert_error(
        reissue(&app, id, "dark", None).await,
        StatusCode::UNAUTHORIZED,
        "missing_token",
    )
    .await;
    // A seat the game does not have.
    assert_error(
        reissue(&app, id, "purple", Some(umpire)).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "seats.unknown_seat",
    )
    .await;
    // Nor is a reissue an action anyone may send.
    assert_error(
        app.submit(
            id,
            Some(umpire),
            json!({"type": "reissue_seat_token", "seat": "dark"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "seats.reissue_not_an_action",
    )
    .await;
    assert_eq!(play_first_legal(&app, id, dark).await, StatusCode::CREATED);

    let response = reissue(&app, id, "dark", Some(umpire)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let reissued: Value = response.json().await.unwrap();
    assert_eq!(reissued["seat"], "dark");
    let new_code = reissued["invitation"]["code"].as_str().unwrap().to_string();
    assert_eq!(reissued["invitation"]["link"], format!("/join#{new_code}"));

    // The old token gets 401 on every call; the old invitation is revoked.
    for path in ["", "/legal-actions", "/state", "/events"] {
        assert_error(
            app.get(&format!("/v1/games/{id}{path}"), Some(dark)).await,
            StatusCode::UNAUTHORIZED,
            "invalid_token",
        )
        .await;
    }
    assert_error(
        redeem(&app, &first_code).await,
        StatusCode::GONE,
        "invitation_revoked",
    )
    .await;
    // Light's token is untouched; the new link's token plays dark.
    assert_eq!(play_first_legal(&app, id, light).await, StatusCode::CREATED);
    let redeemed: Value = redeem(&app, &new_code).await.json().await.unwrap();
    let new_token = redeemed["token"].as_str().unwrap().to_string();
    assert_eq!(
        play_first_legal(&app, id, &new_token).await,
        StatusCode::CREATED
    );

    // The log shows the umpire's reissue, to every viewer, with no secret.
    let everyone: Value = app
        .get(&format!("/v1/games/{id}/events?after=0"), None)
        .await
        .json()
        .await
        .unwrap();
    let reissue_event = everyone["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|event| event["type"] == "seat_token_reissued")
        .expect("the reissue is in the log")
        .clone();
    assert_eq!(reissue_event["actor"], "umpire");
    assert_eq!(
        reissue_event["payload"],
        json!({"type": "seat_token_reissued", "seat": "dark"})
    );
    let umpires_view = app
        .get(&format!("/v1/games/{id}/events?after=0"), Some(umpire))
        .await
        .text()
        .await
        .unwrap();
    let audit = app
        .get(&format!("/v1/games/{id}/audit"), Some(umpire))
        .await
        .text()
        .await
        .unwrap();
    let export = app
        .get(&format!("/v1/games/{id}/export"), Some(umpire))
        .await
        .text()
        .await
        .unwrap();
    for text in [&everyone.to_string(), &umpires_view, &audit, &export] {
        for secret in [dark, new_token.as_str(), &first_code, &new_code] {
            assert!(!text.contains(secret), "a token or code in {text}");
        }
    }
    let audit: Value = serde_json::from_str(&audit).unwrap();
    assert_eq!(audit["valid"], true, "{}", audit["first_failure"]);

    // An archive of the game with its reissue imports into another service
    // and audits clean there.
    let archive: umpire_archive::Archive = serde_json::from_str(&export).unwrap();
    let elsewhere = TestApp::spawn().await;
    let (status, imported) = elsewhere.import(&archive).await;
    assert_eq!(status, StatusCode::CREATED, "{imported}");
    let audit: Value = elsewhere
        .get(
            &format!("/v1/games/{id}/audit"),
            Some(imported["umpire_token"].as_str().unwrap()),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(audit["valid"], true, "{}", audit["first_failure"]);
    // The imported game's own tokens play every seat, the reissued one
    // too, and again once the instance remembers their grants: the reissue
    // the log holds was made before they were issued.
    let seat_tokens = imported["seat_tokens"].as_object().unwrap();
    let mut played = std::collections::BTreeMap::<&str, usize>::new();
    for _ in 0..8 {
        for (seat, token) in seat_tokens {
            let token = token.as_str().unwrap();
            if let Some(action) = growing_action(&elsewhere, id, token).await {
                let response = elsewhere.submit(id, Some(token), action).await;
                assert_eq!(response.status(), StatusCode::CREATED, "{seat}");
                *played.entry(seat.as_str()).or_default() += 1;
            }
        }
    }
    assert!(played.get("dark").copied().unwrap_or(0) >= 2, "{played:?}");
}

#[tokio::test]
async fn a_token_reissued_on_another_instance_no_longer_acts_on_this_one() {
    let app = TestApp::spawn().await;
    let other = app.another_instance().await;
    let created = create(&app, None).await;
    let id = created["id"].as_str().unwrap();
    let umpire = created["umpire_token"].as_str().unwrap();
    let dark = created["seat_tokens"]["dark"].as_str().unwrap();
    let light = created["seat_tokens"]["light"].as_str().unwrap();
    // Dark acts here, then light until dark is to act again: this instance
    // holds the game's fold and remembers dark's grant.
    let first = next_action_of(&app, id, dark, light).await;
    assert_eq!(
        app.submit(id, Some(dark), first).await.status(),
        StatusCode::CREATED
    );
    let dark_action = next_action_of(&app, id, dark, light).await;
    let before = app.stored_version(id).await;

    // The other instance reissues dark's token: this one is not told, and
    // learns of the new token while its fold is from before the reissue.
    let new_code = reissued_code(&other, id, umpire).await;
    let redeemed: Value = redeem(&other, &new_code).await.json().await.unwrap();
    let new_token = redeemed["token"].as_str().unwrap();
    let legal = app.legal_actions(id, new_token).await;
    assert_eq!(legal["version"], before + 1, "{legal}");
    // The new token acts here: the store is asked again, since the fold it
    // is decided on holds a reissue made after its grant was first checked.
    assert_eq!(
        app.submit(id, Some(new_token), dark_action).await.status(),
        StatusCode::CREATED
    );
    // The old token is refused, and nothing of it recorded.
    let version = app.stored_version(id).await;
    assert_error(
        app.submit(id, Some(dark), json!({"type": "grow", "placements": []}))
            .await,
        StatusCode::UNAUTHORIZED,
        "invalid_token",
    )
    .await;
    assert_eq!(app.stored_version(id).await, version);

    // Reissued again on the other instance: this one decides the new
    // token's action on a fold without that reissue, its append conflicts,
    // and the fresher fold refuses the token.
    let again = next_action_of(&app, id, new_token, light).await;
    let version = app.stored_version(id).await;
    reissued_code(&other, id, umpire).await;
    assert_error(
        app.submit(id, Some(new_token), again).await,
        StatusCode::UNAUTHORIZED,
        "invalid_token",
    )
    .await;
    assert_eq!(
        app.stored_version(id).await,
        version + 1,
        "only the reissue"
    );
}

/// Reissues dark's token: the new invitation's code.
async fn reissued_code(app: &TestApp, id: &str, umpire: &str) -> String {
    let response = reissue(app, id, "dark", Some(umpire)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let reissued: Value = response.json().await.unwrap();
    reissued["invitation"]["code"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn the_admin_token_may_reissue_and_a_finished_games_log_is_closed() {
    let app = TestApp::spawn_with(ServiceOptions {
        admin_token: Some("the-admin".into()),
        ..ServiceOptions::default()
    })
    .await;
    let created = create(&app, Some("the-admin")).await;
    let id = created["id"].as_str().unwrap();
    let response = reissue(&app, id, "light", Some("the-admin")).await;
    assert_eq!(response.status(), StatusCode::OK);
    // Another token that is neither the admin's nor the game's.
    assert_error(
        reissue(&app, id, "light", Some("not-the-admin")).await,
        StatusCode::UNAUTHORIZED,
        "invalid_token",
    )
    .await;

    // Light's creation token was revoked: light takes its seat anew by
    // the new invitation, and the game is played to its end.
    let light_code = response.json::<Value>().await.unwrap()["invitation"]["code"]
        .as_str()
        .unwrap()
        .to_string();
    let light: Value = redeem(&app, &light_code).await.json().await.unwrap();
    let game = crate::support::Created {
        id: id.to_string(),
        umpire_token: created["umpire_token"].as_str().unwrap().to_string(),
        seat_tokens: vec![
            (
                "dark".into(),
                created["seat_tokens"]["dark"].as_str().unwrap().to_string(),
            ),
            ("light".into(), light["token"].as_str().unwrap().to_string()),
        ],
    };
    app.play_to_the_end(&game, 3, 400).await;
    assert_error(
        reissue(&app, id, "dark", Some(&game.umpire_token)).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "seats.game_over",
    )
    .await;
}

#[tokio::test]
async fn the_pages_to_create_a_game_and_to_take_a_seat_are_served_hardened() {
    let app = TestApp::spawn().await;
    for (path, script) in [("/new", "/viewer/new.js"), ("/join", "/viewer/join.js")] {
        let page = app.get(path, None).await;
        assert_eq!(page.status(), StatusCode::OK, "{path}");
        let policy = page.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"));
        assert_eq!(page.headers()["referrer-policy"], "no-referrer");
        let html = page.text().await.unwrap();
        assert!(html.contains(script), "{path} loads {script}");
        let module = app.get(script, None).await;
        assert_eq!(module.status(), StatusCode::OK, "{script}");
    }
    // The join page takes its code from the fragment and sends it in a
    // POST body, never in a query string.
    let join = app.get("/viewer/join.js", None).await.text().await.unwrap();
    assert!(join.contains("location.hash") && join.contains("method: 'POST'"));
    assert!(!join.contains("?code="));
}

/// A seat's stream open when its token is reissued delivers the reissue and
/// then ends, `revoked`; another seat's stream goes on.
#[tokio::test]
async fn a_seats_open_stream_ends_when_its_token_is_reissued() {
    let app = TestApp::spawn().await;
    let created = create(&app, None).await;
    let id = created["id"].as_str().unwrap();
    let umpire = created["umpire_token"].as_str().unwrap();
    let dark = created["seat_tokens"]["dark"].as_str().unwrap();
    let light = created["seat_tokens"]["light"].as_str().unwrap();
    let version = app
        .get(&format!("/v1/games/{id}"), None)
        .await
        .json::<Value>()
        .await
        .unwrap()["version"]
        .as_u64()
        .unwrap();
    let within = std::time::Duration::from_secs(120);
    let mut darks = Sse::open(&app, id, Some(dark), Some(version)).await;
    let mut lights = Sse::open(&app, id, Some(light), Some(version)).await;
    let answer: Value = reissue(&app, id, "dark", Some(umpire))
        .await
        .json()
        .await
        .unwrap();
    let new_code = answer["invitation"]["code"].as_str().unwrap().to_string();

    let reissued = darks.next_event(within).await.expect("the reissue").json();
    assert_eq!(reissued["type"], "seat_token_reissued", "{reissued}");
    // The end follows at once (heartbeats would keep a broken stream open
    // until its limits: the whole wait is bounded).
    let end = tokio::time::timeout(within, darks.next_event(within))
        .await
        .expect("the end soon after the reissue")
        .expect("the end");
    assert_eq!(end.event.as_deref(), Some("end"));
    assert_eq!(end.json()["reason"], "revoked", "{}", end.json());

    let seen = lights.next_event(within).await.expect("the reissue").json();
    assert_eq!(seen["type"], "seat_token_reissued");
    assert_error(
        app.get(&format!("/v1/games/{id}/stream"), Some(dark)).await,
        StatusCode::UNAUTHORIZED,
        "invalid_token",
    )
    .await;
    let redeemed: Value = redeem(&app, &new_code).await.json().await.unwrap();
    let new_dark = redeemed["token"].as_str().unwrap().to_string();
    assert_eq!(
        play_first_legal(&app, id, &new_dark).await,
        StatusCode::CREATED
    );
    let next = lights.next_event(within).await.expect("dark's move").json();
    assert_ne!(next["type"], "seat_token_reissued");
    assert!(
        next.get("reason").is_none(),
        "light's stream goes on: {next}"
    );
}

#[tokio::test]
async fn a_reissue_of_a_seat_outside_the_game_is_refused_in_every_game_and_records_nothing() {
    let app = TestApp::spawn().await;
    for game in ["arboretum", "draft_cider", "flower_fields", "treeblox"] {
        let created = app.create(game, json!({}), 7).await;
        let umpire = created.umpire_token.as_str();
        let before = app
            .get(&format!("/v1/games/{}/events", created.id), Some(umpire))
            .await
            .text()
            .await
            .unwrap();
        let outside = ["7", "100", &created.seat_tokens.len().to_string()];
        for seat in outside {
            assert!(
                !created.seat_tokens.iter().any(|(name, _)| name == seat),
                "{game} {seat}"
            );
            assert_error(
                reissue(&app, &created.id, seat, Some(umpire)).await,
                StatusCode::UNPROCESSABLE_ENTITY,
                "seats.unknown_seat",
            )
            .await;
        }
        let after = app
            .get(&format!("/v1/games/{}/events", created.id), Some(umpire))
            .await
            .text()
            .await
            .unwrap();
        assert_eq!(before, after, "{game}: the log is unchanged");
    }
}

/// Guessing codes is slowed down: an address whose redemptions keep
/// failing is answered 429 `too_many_failed_redemptions` with Retry-After,
/// even for a code that would work, while another address still redeems.
#[tokio::test]
async fn failed_redemptions_from_one_address_are_throttled() {
    let app = TestApp::spawn().await;
    let created = create(&app, None).await;
    let seat = created["invitations"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let code = code_of(&created, &seat);
    let burst = umpire_service::throttle::REDEMPTION_FAILURES.burst as usize;
    for guess in 0..burst {
        let wrong = format!("{}{:032x}", &code[..32], guess);
        assert_error(
            redeem(&app, &wrong).await,
            StatusCode::NOT_FOUND,
            "invitation_unknown",
        )
        .await;
    }
    let refused = redeem(&app, &code).await;
    assert!(refused.headers().contains_key("retry-after"));
    assert_error(
        refused,
        StatusCode::TOO_MANY_REQUESTS,
        "too_many_failed_redemptions",
    )
    .await;
    let elsewhere = reqwest::Client::builder()
        .local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap())
        .build()
        .unwrap();
    let redeemed = elsewhere
        .post(app.url("/v1/invitations/redeem"))
        .json(&json!({"code": code}))
        .send()
        .await
        .unwrap();
    assert_eq!(redeemed.status(), StatusCode::OK, "another address");
}

/// On a service without an admin token anyone may create games, each
/// address only so often: past its share, 429 `too_many_games` with
/// Retry-After, for imports too; another address still creates.
#[tokio::test]
async fn an_open_service_limits_game_creation_per_address() {
    let app = TestApp::spawn_with(ServiceOptions {
        creations_per_minute: 2,
        ..ServiceOptions::default()
    })
    .await;
    let request = json!({"game": "treeblox", "options": {}});
    for _ in 0..2 {
        let created = app.post_json("/v1/games", None, &request).await;
        assert_eq!(created.status(), StatusCode::CREATED);
    }
    let refused = app.post_json("/v1/games", None, &request).await;
    let retry_after: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&retry_after), "{retry_after}");
    assert_error(refused, StatusCode::TOO_MANY_REQUESTS, "too_many_games").await;
    let import = app.post_json("/v1/games/import", None, &json!({})).await;
    assert_error(import, StatusCode::TOO_MANY_REQUESTS, "too_many_games").await;
    let elsewhere = reqwest::Client::builder()
        .local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap())
        .build()
        .unwrap();
    let created = elsewhere
        .post(app.url("/v1/games"))
        .json(&request)
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED, "another address");
}

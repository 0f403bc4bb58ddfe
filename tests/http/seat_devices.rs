//! A seat that survives, through the real server: an invitation redeemed by
//! the game's page keeps the seat in an HttpOnly, SameSite=Strict cookie
//! scoped to the game's API, which the API takes only from the page's own
//! origin; a reissue or leaving the device ends it at once; a seat's own
//! one-time link gives it to another device, once, for 10 minutes; a bearer
//! token still works, and wins over the cookie.

use reqwest::{RequestBuilder, Response, StatusCode};
use serde_json::{json, Value};
use umpire_api::ServiceOptions;

use crate::streams::Sse;
use crate::support::{assert_error, TestApp};

/// How a browser marks a request the page of this very origin makes.
const SAME_ORIGIN: &str = "same-origin";

/// A Treeblox game: its id, the umpire's token, dark's and light's
/// invitation codes and light's token.
struct Game {
    id: String,
    umpire: String,
    dark_code: String,
    light_token: String,
}

async fn create(app: &TestApp) -> Game {
    let created: Value = app
        .post_json("/v1/games", None, &json!({"game": "treeblox", "seed": 7}))
        .await
        .json()
        .await
        .unwrap();
    Game {
        id: created["id"].as_str().unwrap().to_string(),
        umpire: created["umpire_token"].as_str().unwrap().to_string(),
        dark_code: created["invitations"]["dark"]["code"]
            .as_str()
            .unwrap()
            .to_string(),
        light_token: created["seat_tokens"]["light"]
            .as_str()
            .unwrap()
            .to_string(),
    }
}

/// A request as the game's page sends it from `app`'s own origin.
fn from_the_page(app: &TestApp, request: RequestBuilder) -> RequestBuilder {
    request
        .header("Origin", &app.address)
        .header("Sec-Fetch-Site", SAME_ORIGIN)
}

/// Redeems `code` as the page does, asking for the cookie.
async fn redeem_for_cookie(app: &TestApp, code: &str) -> Response {
    from_the_page(app, app.client.post(app.url("/v1/invitations/redeem")))
        .json(&json!({"code": code, "keep": "cookie"}))
        .send()
        .await
        .unwrap()
}

/// The `Set-Cookie` of an answer, whole.
fn set_cookie(response: &Response) -> String {
    let all: Vec<_> = response.headers().get_all("set-cookie").iter().collect();
    assert_eq!(all.len(), 1, "one Set-Cookie: {all:?}");
    all[0].to_str().unwrap().to_string()
}

/// The secret a `Set-Cookie` keeps.
fn secret_of(set_cookie: &str) -> String {
    let value = set_cookie
        .split(';')
        .next()
        .and_then(|pair| pair.strip_prefix("umpire_seat="))
        .unwrap_or_else(|| panic!("not the seat's cookie: {set_cookie}"));
    value.to_string()
}

/// Takes dark's seat by its invitation as the page does: the cookie's
/// secret.
async fn dark_by_cookie(app: &TestApp, game: &Game) -> String {
    let response = redeem_for_cookie(app, &game.dark_code).await;
    assert_eq!(response.status(), StatusCode::OK);
    secret_of(&set_cookie(&response))
}

/// A GET of the game's `path` carrying the seat's cookie, marked as the
/// page's own (`site`: what the browser says of where it comes from).
async fn get_with_cookie(
    app: &TestApp,
    game: &Game,
    path: &str,
    secret: &str,
    site: Option<&str>,
) -> Response {
    let mut request = app
        .client
        .get(app.url(&format!("/v1/games/{}{path}", game.id)))
        .header("Cookie", format!("umpire_seat={secret}"));
    if let Some(site) = site {
        request = request.header("Sec-Fetch-Site", site);
    }
    request.send().await.unwrap()
}

/// Who the cookie makes a read of the game's summary.
async fn viewer_by_cookie(app: &TestApp, game: &Game, secret: &str) -> Value {
    let response = get_with_cookie(app, game, "", secret, Some(SAME_ORIGIN)).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json::<Value>().await.unwrap()["viewer"].clone()
}

/// A legal action that places something (two passes, or growths of
/// nothing, end a Treeblox game).
fn growing(legal: &Value) -> Option<Value> {
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

/// A growing legal action of whoever presents the cookie, submitted with
/// `headers` saying where the request comes from.
async fn act_by_cookie(
    app: &TestApp,
    game: &Game,
    secret: &str,
    headers: &[(&str, &str)],
) -> Response {
    let legal: Value = get_with_cookie(app, game, "/legal-actions", secret, Some(SAME_ORIGIN))
        .await
        .json()
        .await
        .unwrap();
    let action = growing(&legal).unwrap_or_else(|| json!({"type": "pass"}));
    let mut request = app
        .client
        .post(app.url(&format!("/v1/games/{}/actions", game.id)))
        .header("Cookie", format!("umpire_seat={secret}"))
        .json(&json!({"action": action}));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn a_seat_taken_by_the_page_is_kept_in_an_http_only_strict_cookie_scoped_to_its_game() {
    let app = TestApp::spawn().await;
    let game = create(&app).await;
    let response = redeem_for_cookie(&app, &game.dark_code).await;
    assert_eq!(response.status(), StatusCode::OK);
    let cookie = set_cookie(&response);
    let secret = secret_of(&cookie);
    assert_eq!(secret.len(), 64, "256 random bits: {cookie}");
    assert_eq!(
        cookie,
        format!(
            "umpire_seat={secret}; Path=/v1/games/{}; Max-Age=2592000; HttpOnly; SameSite=Strict",
            game.id
        ),
        "no Secure for a page served over http"
    );
    // The answer names the seat and holds no token: the page's script
    // never sees a secret.
    let body = response.text().await.unwrap();
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer, json!({"game_id": game.id, "seat": "dark"}));
    assert!(!body.contains(&secret));
    assert_eq!(viewer_by_cookie(&app, &game, &secret).await, "seat:dark");

    // A page served over https gets a Secure cookie.
    let other = create(&app).await;
    let https_origin = app.address.replacen("http://", "https://", 1);
    let response = app
        .client
        .post(app.url("/v1/invitations/redeem"))
        .header("Origin", https_origin)
        .header("Sec-Fetch-Site", SAME_ORIGIN)
        .json(&json!({"code": other.dark_code, "keep": "cookie"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        set_cookie(&response).ends_with("; HttpOnly; SameSite=Strict; Secure"),
        "{}",
        set_cookie(&response)
    );
}

#[tokio::test]
async fn the_cookie_is_asked_for_and_used_only_from_the_pages_own_origin() {
    let app = TestApp::spawn().await;
    let game = create(&app).await;
    // Another site cannot seat a browser: refused before the code is used.
    for (origin, site) in [
        ("http://elsewhere.example", "cross-site"),
        ("http://127.0.0.1:1", "same-site"),
    ] {
        let refused = app
            .client
            .post(app.url("/v1/invitations/redeem"))
            .header("Origin", origin)
            .header("Sec-Fetch-Site", site)
            .json(&json!({"code": game.dark_code, "keep": "cookie"}))
            .send()
            .await
            .unwrap();
        assert!(refused.headers().get("set-cookie").is_none());
        assert_error(refused, StatusCode::FORBIDDEN, "cross_site_request").await;
    }
    let secret = dark_by_cookie(&app, &game).await;

    // Reads from the page, or typed into the address bar (`none`), or from
    // a browser too old to say (neither header): the seat.
    for site in [Some(SAME_ORIGIN), Some("none"), None] {
        let response = get_with_cookie(&app, &game, "/legal-actions", &secret, site).await;
        assert_eq!(response.status(), StatusCode::OK, "{site:?}");
    }
    // From another origin, even of the same site (another port of this
    // host: cookies do not tell ports apart): refused, reads too.
    for site in ["same-site", "cross-site"] {
        assert_error(
            get_with_cookie(&app, &game, "/state", &secret, Some(site)).await,
            StatusCode::FORBIDDEN,
            "cross_site_request",
        )
        .await;
    }
    let version = app.stored_version(&game.id).await;
    let evil = "http://elsewhere.example";
    let port = app.address.rsplit(':').next().unwrap();
    let same_host_other_port = format!("http://127.0.0.1:{}", port.parse::<u16>().unwrap() ^ 1);
    for headers in [
        vec![("Sec-Fetch-Site", "cross-site"), ("Origin", evil)],
        vec![
            ("Sec-Fetch-Site", "same-site"),
            ("Origin", &same_host_other_port),
        ],
        // The browser's word and the origin must both agree.
        vec![("Sec-Fetch-Site", SAME_ORIGIN), ("Origin", evil)],
        vec![("Origin", evil)],
        // A change with neither: not from a browser's page.
        vec![],
    ] {
        assert_error(
            act_by_cookie(&app, &game, &secret, &headers).await,
            StatusCode::FORBIDDEN,
            "cross_site_request",
        )
        .await;
    }
    assert_eq!(app.stored_version(&game.id).await, version, "nothing acted");
    // From the page: dark acts.
    let page = [
        ("Sec-Fetch-Site", SAME_ORIGIN),
        ("Origin", app.address.as_str()),
    ];
    let acted = act_by_cookie(&app, &game, &secret, &page).await;
    assert_eq!(
        acted.status(),
        StatusCode::CREATED,
        "{}",
        acted.text().await.unwrap()
    );
    // So does an older browser, by `Origin` alone.
    let legal = app.legal_actions(&game.id, &game.light_token).await;
    let light_action = growing(&legal).expect("light grows");
    let by_light = app
        .submit(&game.id, Some(&game.light_token), light_action)
        .await;
    assert_eq!(by_light.status(), StatusCode::CREATED);
    let acted = act_by_cookie(&app, &game, &secret, &[("Origin", app.address.as_str())]).await;
    assert_eq!(acted.status(), StatusCode::CREATED);

    // A bearer token wins: the cookie is then not even looked at, wherever
    // the request comes from.
    let response = app
        .client
        .get(app.url(&format!("/v1/games/{}", game.id)))
        .bearer_auth(&game.light_token)
        .header("Cookie", format!("umpire_seat={secret}"))
        .header("Sec-Fetch-Site", "cross-site")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.json::<Value>().await.unwrap()["viewer"],
        "seat:light"
    );
    // Two seat cookies: someone else set one; neither is believed.
    let response = app
        .client
        .get(app.url(&format!("/v1/games/{}", game.id)))
        .header(
            "Cookie",
            format!("umpire_seat={secret}; umpire_seat={}", "0".repeat(64)),
        )
        .header("Sec-Fetch-Site", SAME_ORIGIN)
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "ambiguous_seat_cookie").await;
}

#[tokio::test]
async fn a_reissue_ends_the_cookie_at_once_its_stream_too_and_the_refusal_clears_it() {
    let app = TestApp::spawn().await;
    let other_instance = app.another_instance().await;
    let game = create(&app).await;
    let secret = dark_by_cookie(&app, &game).await;
    assert_eq!(viewer_by_cookie(&app, &game, &secret).await, "seat:dark");
    let version = app.stored_version(&game.id).await;
    let mut stream = Sse::of(
        from_the_page(
            &app,
            app.client
                .get(app.url(&format!("/v1/games/{}/stream?after={version}", game.id))),
        )
        .header("Cookie", format!("umpire_seat={secret}"))
        .send()
        .await
        .unwrap(),
    );

    // The umpire reissues dark through another instance.
    let reissued = app
        .post_json(
            &format!("/v1/games/{}/seats/dark/reissue", game.id),
            Some(&game.umpire),
            &json!(null),
        )
        .await;
    assert_eq!(reissued.status(), StatusCode::OK);
    for instance in [&app, &other_instance] {
        let refused = get_with_cookie(instance, &game, "/state", &secret, Some(SAME_ORIGIN)).await;
        assert_eq!(
            set_cookie(&refused),
            format!(
                "umpire_seat=; Path=/v1/games/{}; Max-Age=0; HttpOnly; SameSite=Strict",
                game.id
            ),
            "the refusal clears the cookie"
        );
        assert_error(refused, StatusCode::UNAUTHORIZED, "page_session_ended").await;
    }
    let page = [
        ("Sec-Fetch-Site", SAME_ORIGIN),
        ("Origin", app.address.as_str()),
    ];
    assert_error(
        act_by_cookie(&app, &game, &secret, &page).await,
        StatusCode::UNAUTHORIZED,
        "page_session_ended",
    )
    .await;
    let within = std::time::Duration::from_secs(120);
    let seen = stream.next_event(within).await.expect("the reissue").json();
    assert_eq!(seen["type"], "seat_token_reissued");
    let end = stream.next_event(within).await.expect("the end");
    assert_eq!(end.event.as_deref(), Some("end"));
    assert_eq!(end.json()["reason"], "revoked");
}

#[tokio::test]
async fn leaving_the_device_ends_the_cookie_everywhere_and_only_the_page_may_ask() {
    let app = TestApp::spawn().await;
    let other_instance = app.another_instance().await;
    let game = create(&app).await;
    let secret = dark_by_cookie(&app, &game).await;
    let leave = |site: &'static str, origin: String| {
        app.client
            .delete(app.url(&format!("/v1/games/{}/page-session", game.id)))
            .header("Cookie", format!("umpire_seat={secret}"))
            .header("Sec-Fetch-Site", site)
            .header("Origin", origin)
            .send()
    };
    // Another site cannot make the player leave.
    assert_error(
        leave("cross-site", "http://elsewhere.example".into())
            .await
            .unwrap(),
        StatusCode::FORBIDDEN,
        "cross_site_request",
    )
    .await;
    assert_eq!(viewer_by_cookie(&app, &game, &secret).await, "seat:dark");

    let left = leave(SAME_ORIGIN, app.address.clone()).await.unwrap();
    assert_eq!(left.status(), StatusCode::NO_CONTENT);
    assert!(set_cookie(&left).starts_with("umpire_seat=; Path=/v1/games/"));
    // A copy of the cookie is refused on every instance.
    for instance in [&app, &other_instance] {
        assert_error(
            get_with_cookie(instance, &game, "", &secret, Some(SAME_ORIGIN)).await,
            StatusCode::UNAUTHORIZED,
            "page_session_ended",
        )
        .await;
    }
    // Leaving again, or without a cookie, is no error.
    assert_eq!(
        leave(SAME_ORIGIN, app.address.clone())
            .await
            .unwrap()
            .status(),
        StatusCode::NO_CONTENT
    );
}

/// The database as its owner, who may change what the service may not.
async fn as_owner(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
}

#[tokio::test]
async fn a_seats_device_link_gives_the_seat_to_another_device_once_within_ten_minutes() {
    let database = umpire_storage::testing::fresh_database().await;
    let app = TestApp::spawn_on(&database.service_url, ServiceOptions::default()).await;
    let game = create(&app).await;
    let first_device = dark_by_cookie(&app, &game).await;
    let make_link = |secret: String| {
        from_the_page(
            &app,
            app.client
                .post(app.url(&format!("/v1/games/{}/device-links", game.id))),
        )
        .header("Cookie", format!("umpire_seat={secret}"))
        .send()
    };
    let response = make_link(first_device.clone()).await.unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let link: Value = response.json().await.unwrap();
    assert_eq!(link["seat"], "dark");
    let code = link["code"].as_str().unwrap().to_string();
    assert_eq!(link["link"], format!("/join#{code}"));
    let expires_at = chrono::DateTime::parse_from_rfc3339(link["expires_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&chrono::Utc);
    let left = expires_at - chrono::Utc::now();
    assert!(
        left > chrono::Duration::minutes(9) && left <= chrono::Duration::minutes(10),
        "{left}"
    );

    // The other device takes the seat; the first keeps it.
    let second_device = secret_of(&set_cookie(&redeem_for_cookie(&app, &code).await));
    assert_ne!(second_device, first_device);
    assert_eq!(
        viewer_by_cookie(&app, &game, &second_device).await,
        "seat:dark"
    );
    assert_eq!(
        viewer_by_cookie(&app, &game, &first_device).await,
        "seat:dark"
    );
    // Once.
    assert_error(
        redeem_for_cookie(&app, &code).await,
        StatusCode::GONE,
        "invitation_used",
    )
    .await;

    // Ten minutes later, an unused link is refused.
    let unused: Value = make_link(second_device.clone())
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    as_owner(&database.owner_url)
        .await
        .execute(
            "UPDATE invitations SET expires_at = now() - interval '1 second'
             WHERE code_hash = $1",
            &[&umpire_storage::hash_token(
                unused["code"].as_str().unwrap(),
            )],
        )
        .await
        .unwrap();
    assert_error(
        redeem_for_cookie(&app, unused["code"].as_str().unwrap()).await,
        StatusCode::GONE,
        "invitation_expired",
    )
    .await;

    // An unused link dies with a reissue of the seat, as the devices do.
    let pending: Value = make_link(first_device.clone())
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let reissued = app
        .post_json(
            &format!("/v1/games/{}/seats/dark/reissue", game.id),
            Some(&game.umpire),
            &json!(null),
        )
        .await;
    assert_eq!(reissued.status(), StatusCode::OK);
    assert_error(
        redeem_for_cookie(&app, pending["code"].as_str().unwrap()).await,
        StatusCode::GONE,
        "invitation_revoked",
    )
    .await;
}

#[tokio::test]
async fn only_a_seat_makes_a_device_link_for_itself_so_often_and_a_token_still_works() {
    let app = TestApp::spawn().await;
    let game = create(&app).await;
    let path = format!("/v1/games/{}/device-links", game.id);
    assert_error(
        app.post_json(&path, None, &json!(null)).await,
        StatusCode::UNAUTHORIZED,
        "missing_token",
    )
    .await;
    assert_error(
        app.post_json(&path, Some(&game.umpire), &json!(null)).await,
        StatusCode::FORBIDDEN,
        "seat_only",
    )
    .await;
    // A seat's bearer token makes links too (no cookie, no Origin needed),
    // and what the link gives plays: redeemed for a token, as any client.
    let burst = umpire_service::throttle::DEVICE_LINKS_PER_SEAT.burst as usize;
    let mut codes = Vec::new();
    for _ in 0..burst {
        let response = app
            .post_json(&path, Some(&game.light_token), &json!(null))
            .await;
        assert_eq!(response.status(), StatusCode::CREATED);
        codes.push(
            response.json::<Value>().await.unwrap()["code"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    let throttled = app
        .post_json(&path, Some(&game.light_token), &json!(null))
        .await;
    assert!(throttled.headers().contains_key("retry-after"));
    assert_error(
        throttled,
        StatusCode::TOO_MANY_REQUESTS,
        "too_many_device_links",
    )
    .await;
    let redeemed: Value = app
        .post_json("/v1/invitations/redeem", None, &json!({"code": codes[0]}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(redeemed["seat"], "light");
    let token = redeemed["token"].as_str().unwrap();
    let summary: Value = app
        .get(&format!("/v1/games/{}", game.id), Some(token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(summary["viewer"], "seat:light");
}

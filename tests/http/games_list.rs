//! `GET /v1/games` and the home page's list: newest first, filtered by game
//! and status, a keyset page at a time, for the admin token when the
//! service has one and for anyone when it runs open.

use std::collections::BTreeSet;

use reqwest::StatusCode;
use serde_json::{json, Value};
use umpire_api::ServiceOptions;

use crate::archive_support::simulated;
use crate::support::{assert_error, TestApp};

const ADMIN: &str = "the-admin-token";

/// One page of `/v1/games` with `query`, answered 200.
async fn page(app: &TestApp, query: &str, token: Option<&str>) -> Value {
    let response = app.get(&format!("/v1/games{query}"), token).await;
    assert_eq!(response.status(), StatusCode::OK, "{query}");
    response.json().await.unwrap()
}

fn ids(page: &Value) -> Vec<String> {
    page["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|game| game["id"].as_str().unwrap().to_string())
        .collect()
}

/// Every game `query` (`?…&` or `?`) lists, page after page of `limit`.
async fn every_page(app: &TestApp, query: &str, limit: usize) -> Vec<String> {
    let mut listed = Vec::new();
    let mut after = String::new();
    loop {
        let page = page(app, &format!("{query}limit={limit}{after}"), None).await;
        listed.extend(ids(&page));
        match page["next"].as_str() {
            Some(next) => after = format!("&after={next}"),
            None => return listed,
        }
    }
}

#[tokio::test]
async fn paging_walks_every_game_once_newest_first_while_games_are_created() {
    let app = TestApp::spawn().await;
    let kinds = ["arboretum", "treeblox", "draft_cider", "flower_fields"];
    let mut created = Vec::new();
    for n in 0..7 {
        created.push(app.create(kinds[n % 4], json!(null), n as u64).await.id);
    }
    let mut listed = Vec::new();
    let mut after = String::new();
    let mut pages = 0;
    loop {
        let page = page(&app, &format!("?limit=3{after}"), None).await;
        pages += 1;
        listed.extend(ids(&page));
        // Games created between pages are newer than the walk: not listed,
        // and they move nothing the walk has still to list.
        app.create("arboretum", json!(null), 100 + pages).await;
        match page["next"].as_str() {
            Some(next) => after = format!("&after={next}"),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    let newest_first: Vec<String> = created.iter().rev().cloned().collect();
    assert_eq!(listed, newest_first, "each game once, newest first");

    // What an entry shows is what a spectator may read: no options, seed
    // or token.
    let first = page(&app, "?limit=1", None).await;
    let entry = &first["games"][0];
    let fields: BTreeSet<&str> = entry
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        fields,
        BTreeSet::from([
            "id",
            "game",
            "seats",
            "version",
            "finished",
            "created_at",
            "last_event_at"
        ])
    );
    let summary = app.summary(entry["id"].as_str().unwrap()).await;
    for field in ["game", "seats", "version", "created_at"] {
        assert_eq!(entry[field], summary[field], "{field}");
    }
    assert_eq!(entry["finished"], summary["status"]["finished"]);
    // The default page holds 50 games: all 10 here, and no next.
    let default = page(&app, "", None).await;
    assert_eq!((ids(&default).len(), &default["next"]), (10, &Value::Null));
}

/// A simulated finished game, cut before its last decision: importing it
/// and then sending that decision ends the game through an append.
fn all_but_the_last_decision(game: &str) -> (umpire_archive::Archive, String, Value) {
    let mut archive = simulated(game, 0);
    let last = archive.events.last().unwrap().clone();
    archive
        .events
        .retain(|event| event.decided_at < last.decided_at);
    archive.rejections.clear();
    (archive, last.actor, Value::clone(&last.action))
}

#[tokio::test]
async fn a_game_is_listed_finished_once_imported_finished_or_ended_by_an_action() {
    let app = TestApp::spawn().await;
    let imported = simulated("treeblox", 1);
    let (status, _) = app.import(&imported).await;
    assert_eq!(status, StatusCode::CREATED);
    let (cut, actor, last_action) = all_but_the_last_decision("arboretum");
    let (status, answer) = app.import(&cut).await;
    assert_eq!(status, StatusCode::CREATED);
    let in_progress_arboretum = app.create("arboretum", json!(null), 5).await.id;
    let in_progress_cider = app.create("draft_cider", json!(null), 6).await.id;
    let (imported_id, cut_id) = (imported.game_id.to_string(), cut.game_id.to_string());

    let finished = page(&app, "?status=finished", None).await;
    assert_eq!(ids(&finished), std::slice::from_ref(&imported_id));
    let entry = &finished["games"][0];
    assert_eq!(entry["finished"], true);
    assert_eq!(entry["version"], imported.events.len());
    let score = app
        .get(&format!("/v1/games/{imported_id}/score"), None)
        .await
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(score["final"], true, "{score}");
    let seats = entry["seats"].as_array().unwrap();
    let winners = entry["winners"]
        .as_array()
        .expect("a finished game's winners");
    assert!(
        winners.iter().all(|winner| seats.contains(winner)),
        "{entry}"
    );
    assert_eq!(
        entry["last_event_at"].as_str().map(|t| &t[..19]),
        Some(&imported.events.last().unwrap().recorded_at[..19])
    );
    let in_progress = every_page(&app, "?status=in_progress&", 2).await;
    assert_eq!(
        in_progress,
        [
            in_progress_cider.clone(),
            in_progress_arboretum.clone(),
            cut_id.clone()
        ]
    );

    // The last decision, sent through the API, ends the cut game.
    let token = match actor.strip_prefix("seat:") {
        Some(seat) => answer["seat_tokens"][seat].as_str().unwrap().to_string(),
        None => answer["umpire_token"].as_str().unwrap().to_string(),
    };
    let response = app.submit(&cut_id, Some(&token), last_action).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(app.summary(&cut_id).await["status"]["finished"], true);
    let finished = every_page(&app, "?status=finished&", 1).await;
    assert_eq!(
        BTreeSet::from_iter(finished),
        BTreeSet::from([imported_id.clone(), cut_id.clone()])
    );
    let in_progress = every_page(&app, "?status=in_progress&", 1).await;
    assert_eq!(
        in_progress,
        [in_progress_cider.clone(), in_progress_arboretum.clone()]
    );

    // By game, and by game and status.
    let arboretum = every_page(&app, "?game=arboretum&", 1).await;
    assert_eq!(
        BTreeSet::from_iter(arboretum),
        BTreeSet::from([in_progress_arboretum.clone(), cut_id.clone()])
    );
    assert_eq!(
        every_page(&app, "?game=arboretum&status=finished&", 5).await,
        [cut_id]
    );
    assert_eq!(
        every_page(&app, "?game=treeblox&status=in_progress&", 5).await,
        Vec::<String>::new()
    );
    assert_eq!(
        every_page(&app, "?game=draft_cider&", 5).await,
        [in_progress_cider]
    );
}

#[tokio::test]
async fn limits_cursors_games_and_statuses_outside_the_list_are_refused() {
    let app = TestApp::spawn().await;
    app.create("arboretum", json!(null), 1).await;
    for limit in ["0", "201"] {
        let response = app.get(&format!("/v1/games?limit={limit}"), None).await;
        let body = assert_error(response, StatusCode::BAD_REQUEST, "invalid_limit").await;
        assert!(body["message"].as_str().unwrap().contains("200"), "{body}");
    }
    for limit in ["1", "200"] {
        page(&app, &format!("?limit={limit}"), None).await;
    }
    let next = {
        app.create("arboretum", json!(null), 2).await;
        page(&app, "?limit=1", None).await["next"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        ids(&page(&app, &format!("?limit=1&after={next}"), None).await).len(),
        1
    );
    for after in ["junk", &next[..next.len() - 2], &format!("{next}00"), ""] {
        let response = app.get(&format!("/v1/games?after={after}"), None).await;
        assert_error(response, StatusCode::BAD_REQUEST, "invalid_cursor").await;
    }
    let response = app.get("/v1/games?game=chess", None).await;
    let body = assert_error(response, StatusCode::BAD_REQUEST, "invalid_query").await;
    assert!(
        body["message"].as_str().unwrap().contains("arboretum"),
        "{body}"
    );
    for query in ["status=paused", "limit=-1", "colour=red"] {
        let response = app.get(&format!("/v1/games?{query}"), None).await;
        assert_error(response, StatusCode::BAD_REQUEST, "invalid_query").await;
    }
}

#[tokio::test]
async fn with_an_admin_token_only_its_holder_lists_games_and_the_home_page_lists_none() {
    let app = TestApp::spawn_with(ServiceOptions {
        admin_token: Some(ADMIN.into()),
        ..ServiceOptions::default()
    })
    .await;
    let created = app
        .post_json("/v1/games", Some(ADMIN), &json!({"game": "arboretum"}))
        .await
        .json::<Value>()
        .await
        .unwrap();
    let (id, umpire) = (
        created["id"].as_str().unwrap(),
        created["umpire_token"].as_str().unwrap(),
    );
    let response = app.get("/v1/games", None).await;
    let body = assert_error(response, StatusCode::UNAUTHORIZED, "missing_token").await;
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("Listing games"),
        "{body}"
    );
    for token in ["not-the-admin-token", umpire] {
        let response = app.get("/v1/games", Some(token)).await;
        assert_error(response, StatusCode::UNAUTHORIZED, "invalid_token").await;
    }
    assert_eq!(ids(&page(&app, "", Some(ADMIN)).await), [id]);

    let home = app.get("/", None).await;
    assert_eq!(home.status(), StatusCode::OK);
    let home = home.text().await.unwrap();
    assert!(!home.contains(id), "the home page lists no game");
    assert!(
        home.contains("needs") || home.contains("admin token"),
        "{home}"
    );
    assert!(
        !home.contains("<input type=\"password\""),
        "the page asks for no admin token"
    );
}

#[tokio::test]
async fn an_open_service_lists_games_to_anyone_even_with_a_game_token() {
    let app = TestApp::spawn().await;
    let created = app.create("treeblox", json!(null), 1).await;
    assert_eq!(
        ids(&page(&app, "", None).await),
        std::slice::from_ref(&created.id)
    );
    assert_eq!(
        ids(&page(&app, "", Some(&created.umpire_token)).await),
        [created.id]
    );
}

/// Rows of the home page's list: the ids it links to.
fn linked_games(home: &str) -> Vec<String> {
    home.split("<a href=\"/games/")
        .skip(1)
        .map(|rest| rest[..36].to_string())
        .collect()
}

#[tokio::test]
async fn the_home_page_lists_recent_games_with_filters_a_next_page_and_everything_escaped() {
    let app = TestApp::spawn().await;
    let imported = simulated("flower_fields", 2);
    assert_eq!(app.import(&imported).await.0, StatusCode::CREATED);
    let mut created = Vec::new();
    for n in 0..umpire_api::routes::home::HOME_PAGE_GAMES {
        created.push(app.create("arboretum", json!(null), n as u64).await.id);
    }
    let home = app.get("/", None).await;
    assert_eq!(home.status(), StatusCode::OK);
    let policy = home.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        !policy.contains("script-src"),
        "the page runs no script: {policy}"
    );
    let home = home.text().await.unwrap();
    assert!(!home.contains("<script"), "{home}");
    for link in ["/rules", "/new", "/docs/"] {
        assert!(home.contains(&format!("href=\"{link}\"")), "links {link}");
    }
    let newest_first: Vec<String> = created.iter().rev().cloned().collect();
    assert_eq!(linked_games(&home), newest_first);
    assert!(home.contains("In progress"));
    // A game by its name for people, in the rows and the filter alike.
    assert!(home.contains("<td>Build Your Arboretum</td>"), "{home}");
    assert!(!home.contains("<td>arboretum</td>"), "{home}");
    assert!(home.contains("<option value=\"draft_cider\">Draft &amp; Cider</option>"));
    // The next page holds the one game left, and a link back to the first.
    let next = home
        .split("rel=\"next\"")
        .next()
        .and_then(|before| before.rsplit("<a href=\"").next())
        .map(|link| link.trim_end_matches("\" ").replace("&amp;", "&"))
        .expect("a next page link");
    assert!(next.starts_with("/?after="), "{next}");
    let second = app.get(&next, None).await.text().await.unwrap();
    assert_eq!(linked_games(&second), [imported.game_id.to_string()]);
    assert!(second.contains("href=\"/\""), "a link to the first page");
    assert!(!second.contains("rel=\"next\""));

    // Filters: by status, by game, both; the chosen ones stay chosen.
    let finished = app
        .get("/?status=finished", None)
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(linked_games(&finished), [imported.game_id.to_string()]);
    assert!(finished.contains("Finished"));
    assert!(finished.contains("<option value=\"finished\" selected>"));
    let by_game = app
        .get("/?game=flower_fields&status=", None)
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(linked_games(&by_game), [imported.game_id.to_string()]);
    assert!(by_game.contains("<option value=\"flower_fields\" selected>"));

    // What a visitor puts in the address is refused, and shown escaped.
    let hostile = app
        .get("/?game=%3Cscript%3Ealert(1)%3C%2Fscript%3E", None)
        .await;
    assert_eq!(hostile.status(), StatusCode::BAD_REQUEST);
    let hostile = hostile.text().await.unwrap();
    assert!(!hostile.contains("<script>"), "{hostile}");
    assert!(hostile.contains("&lt;script&gt;"), "{hostile}");
    let bad_cursor = app.get("/?after=%22%3E%3Cb%3E", None).await;
    assert_eq!(bad_cursor.status(), StatusCode::BAD_REQUEST);
    assert!(!bad_cursor.text().await.unwrap().contains("<b>"));
}

/// Whatever cursor and limit a client makes up, the list (and the home
/// page that shows it) answers a page or 400 with its code, never a 5xx:
/// a cursor naming a time PostgreSQL cannot hold is refused before the
/// query. Fuzzed against the real server and PostgreSQL.
#[test]
fn made_up_cursors_and_limits_are_a_page_or_a_400_never_a_5xx() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let app = runtime.block_on(async {
        let app = TestApp::spawn().await;
        app.create("arboretum", json!(null), 1).await;
        app
    });
    let micros = prop_oneof![
        any::<i64>(),
        Just(i64::MIN),
        Just(i64::MAX),
        // Around the earliest time PostgreSQL holds (4714-11-24 BC).
        -210_866_803_200_000_010i64..-210_866_803_199_999_990,
        -300_000_000_000_000_000i64..300_000_000_000_000_000,
    ];
    let built_cursor = (micros, any::<[u8; 16]>()).prop_map(|(micros, id)| {
        let mut bytes = micros.to_be_bytes().to_vec();
        bytes.extend_from_slice(&id);
        bytes
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect::<String>()
    });
    let cursor = prop_oneof![built_cursor, "[0-9a-fA-Fx_-]{0,60}"];
    let limit = prop_oneof![Just(String::new()), "-?[0-9]{1,25}", "[a-z0-9]{0,4}"];
    let mut runner = TestRunner::new(Config {
        cases: 160,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&(cursor, limit), |(cursor, limit)| {
            let query = if limit.is_empty() {
                format!("after={cursor}")
            } else {
                format!("after={cursor}&limit={limit}")
            };
            let (status, code, home) = runtime.block_on(async {
                let response = app.get(&format!("/v1/games?{query}"), None).await;
                let status = response.status();
                let body: Value = response.json().await.unwrap_or(Value::Null);
                let home = app.get(&format!("/?after={cursor}"), None).await.status();
                (
                    status,
                    body["code"].as_str().unwrap_or("").to_string(),
                    home,
                )
            });
            prop_assert!(
                status == StatusCode::OK
                    || (status == StatusCode::BAD_REQUEST
                        && ["invalid_cursor", "invalid_limit", "invalid_query"]
                            .contains(&code.as_str())),
                "/v1/games?{} answered {} {}",
                query,
                status,
                code
            );
            prop_assert!(
                home == StatusCode::OK || home == StatusCode::BAD_REQUEST,
                "/?after={} answered {}",
                cursor,
                home
            );
            Ok(())
        })
        .unwrap();
}

//! A path the service serves, asked with a method it does not answer, is
//! 405 `method_not_allowed` with `Allow` listing what it answers; a path
//! that leads nowhere stays 404 `route_not_found`.

use reqwest::{Method, StatusCode};
use serde_json::Value;
use umpire_api::wrong_method::{KnownPaths, PAGES};

use crate::support::{assert_error, TestApp};

/// `path` as a request would name it: `game_id` for `{id}`, a rule page for
/// `{page}`, a file for a tail (`{name:.*}`).
fn concrete(path: &str, game_id: &str) -> String {
    path.replace("{id}", game_id)
        .replace("{page}", "arboretum")
        .replace("{name:.*}", "app.js")
        .replace("{_:.*}", "index.html")
}

async fn ask(app: &TestApp, method: Method, path: &str) -> reqwest::Response {
    app.client
        .request(method, app.url(path))
        .send()
        .await
        .expect("an answer")
}

/// Asserts a 405 whose `Allow` is `allow`, in the envelope.
async fn assert_wrong_method(response: reqwest::Response, allow: &str, asked: &str) {
    assert_eq!(
        response
            .headers()
            .get("allow")
            .and_then(|value| value.to_str().ok()),
        Some(allow),
        "{asked}"
    );
    let body = assert_error(
        response,
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
    )
    .await;
    let message = body["message"].as_str().unwrap();
    for method in allow.split(", ") {
        assert!(message.contains(method), "{asked}: {message}");
    }
}

#[tokio::test]
async fn a_known_path_asked_with_a_wrong_method_is_405_with_allow() {
    let app = TestApp::spawn().await;
    let cases = [
        (Method::PUT, "/v1/games", "GET, POST"),
        (Method::DELETE, "/v1/games/{id}", "GET"),
        (Method::GET, "/v1/games/{id}/actions", "POST"),
        (Method::PUT, "/v1/games/{id}/state", "GET"),
        (Method::GET, "/v1/scores", "POST"),
        (Method::POST, "/healthz", "GET"),
        // Also `/v1/games/{id}`: it answers what both routes answer.
        (Method::DELETE, "/v1/games/import", "GET, POST"),
        (Method::POST, "/", "GET, HEAD"),
        (Method::PATCH, "/viewer/{name:.*}", "GET"),
    ];
    for (method, path, allow) in cases {
        let asked = format!("{method} {path}");
        let path = concrete(path, "6f1c2a54-8d0e-4a43-9b0a-3c1f5e2d7a90");
        assert_wrong_method(ask(&app, method, &path).await, allow, &asked).await;
    }
}

#[tokio::test]
async fn a_path_that_leads_nowhere_is_still_404() {
    let app = TestApp::spawn().await;
    for (method, path) in [
        (Method::GET, "/v2/nothing"),
        (Method::POST, "/v1/games/{id}/nowhere"),
        (Method::DELETE, "/nowhere"),
    ] {
        let path = concrete(path, "6f1c2a54-8d0e-4a43-9b0a-3c1f5e2d7a90");
        let response = ask(&app, method, &path).await;
        assert!(response.headers().get("allow").is_none(), "{path}");
        assert_error(response, StatusCode::NOT_FOUND, "route_not_found").await;
    }
}

/// The methods a documented path answers, as `Allow` lists them.
fn documented_methods(item: &Value) -> Vec<String> {
    ["GET", "HEAD", "POST", "PUT", "DELETE"]
        .into_iter()
        .filter(|method| item.get(method.to_ascii_lowercase()).is_some())
        .map(String::from)
        .collect()
}

/// Every route the service serves, the document's operations and the pages
/// outside it (`wrong_method::PAGES`), with the methods listed for it.
fn every_route() -> Vec<(String, Vec<String>)> {
    let document = umpire_api::openapi::document();
    let documented = document["paths"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(path, item)| (path.clone(), documented_methods(item)));
    let pages = PAGES.iter().map(|(path, methods)| {
        let names = methods.iter().map(|method| method.as_str().to_string());
        (path.to_string(), names.collect())
    });
    documented.chain(pages).collect()
}

/// Every route, the document's operations and the pages outside it
/// (`wrong_method::PAGES`), answers the methods listed for it (anything but
/// 404 or 405), and a method it lacks with 405 naming them: the list cannot
/// drift from the routes.
#[tokio::test]
async fn every_route_answers_the_methods_listed_for_it_and_405_to_others() {
    let app = TestApp::spawn().await;
    let game = app.create("arboretum", serde_json::json!({}), 1).await;
    for (path, methods) in every_route() {
        let asked_path = concrete(&path, &game.id);
        for method in &methods {
            let method = Method::from_bytes(method.as_bytes()).unwrap();
            let status = ask(&app, method.clone(), &asked_path).await.status();
            assert!(
                status != StatusCode::NOT_FOUND && status != StatusCode::METHOD_NOT_ALLOWED,
                "{method} {asked_path} is listed but answered {status}"
            );
        }
        if path == "/v1/games/import" {
            continue; // Also `/v1/games/{id}` (above).
        }
        // A method the route does not list (leaving a device is a DELETE).
        let wrong = if methods.iter().any(|method| method == "DELETE") {
            Method::PATCH
        } else {
            Method::DELETE
        };
        let response = ask(&app, wrong.clone(), &asked_path).await;
        assert_wrong_method(response, &methods.join(", "), &format!("{wrong} {path}")).await;
    }
}

/// How many requests `/metrics` counts for `method` at `endpoint`, the
/// route template actix routed them to.
async fn counted(app: &TestApp, endpoint: &str, method: &Method) -> u64 {
    let text = app.get("/metrics", None).await.text().await.unwrap();
    let series =
        format!("umpire_http_requests_total{{endpoint=\"{endpoint}\",method=\"{method}\",");
    text.lines()
        .filter_map(|line| line.strip_prefix(&series))
        .map(|rest| rest.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum()
}

/// The route a request's log span names, found from the service's own list
/// before actix routes it, is the one actix routes it to (which the metrics
/// name): for every route and method it answers, the documented path that is
/// also another's (`/v1/games/import`) included. A method no route answers
/// is left to actix to name.
#[tokio::test]
async fn the_route_the_log_names_is_the_route_actix_takes() {
    let app = TestApp::spawn().await;
    let game = app.create("arboretum", serde_json::json!({}), 1).await;
    let known = KnownPaths::new(&umpire_api::openapi::document());
    let mut asked = 0;
    for (path, methods) in every_route() {
        if path == "/metrics" {
            continue; // Counted by the reading itself.
        }
        let asked_path = concrete(&path, &game.id);
        let methods = methods
            .iter()
            .map(|method| Method::from_bytes(method.as_bytes()).unwrap());
        for method in methods {
            let named = known
                .route(
                    &actix_web::http::Method::from_bytes(method.as_str().as_bytes()).unwrap(),
                    &asked_path,
                )
                .unwrap_or_else(|| panic!("{method} {asked_path}: no route named"))
                .to_string();
            let before = counted(&app, &named, &method).await;
            ask(&app, method.clone(), &asked_path).await;
            assert_eq!(
                counted(&app, &named, &method).await,
                before + 1,
                "{method} {asked_path}: the log names {named}, actix routed it elsewhere"
            );
            asked += 1;
        }
    }
    assert!(asked > 25, "{asked}");
    assert_eq!(
        known.route(&actix_web::http::Method::POST, "/v1/games/import"),
        Some("/v1/games/import")
    );
    assert_eq!(
        known.route(&actix_web::http::Method::GET, "/v2/nothing"),
        None
    );
}

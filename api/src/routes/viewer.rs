//! The umpire's desk: a replay viewer page for any game, at `/games/{id}`.
//!
//! The page is static HTML, CSS and JavaScript modules compiled into the
//! binary (`api/viewer/`): no build step, nothing fetched from elsewhere, so
//! it works offline. It holds no game data itself: the browser reads
//! everything from `/v1` with the viewer's own token, so it sees exactly
//! what that viewer may see through the API and nothing else. The token is
//! kept in the tab's session storage and sent as a header, never in a URL.
//! Outside `/v1` and so outside the OpenAPI document.

use actix_web::http::header::{self, ContentType};
use actix_web::{get, web, HttpResponse};
use uuid::Uuid;

/// Every asset the page loads, by name under `/viewer/`.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "viewer.css",
        "text/css; charset=utf-8",
        include_str!("../../viewer/viewer.css"),
    ),
    ("app.js", JS, include_str!("../../viewer/app.js")),
    ("api.js", JS, include_str!("../../viewer/api.js")),
    ("words.js", JS, include_str!("../../viewer/words.js")),
    ("svg.js", JS, include_str!("../../viewer/svg.js")),
    ("tools.js", JS, include_str!("../../viewer/tools.js")),
    (
        "boards/arboretum.js",
        JS,
        include_str!("../../viewer/boards/arboretum.js"),
    ),
    (
        "boards/treeblox.js",
        JS,
        include_str!("../../viewer/boards/treeblox.js"),
    ),
    (
        "boards/draft_cider.js",
        JS,
        include_str!("../../viewer/boards/draft_cider.js"),
    ),
    (
        "boards/flower_fields.js",
        JS,
        include_str!("../../viewer/boards/flower_fields.js"),
    ),
];

const JS: &str = "text/javascript; charset=utf-8";

const PAGE: &str = include_str!("../../viewer/index.html");

/// Scripts and styles only from this origin, requests only to it, no
/// framing: a game's page cannot be made to run or send anything else.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

fn hardened(mut response: actix_web::HttpResponseBuilder) -> actix_web::HttpResponseBuilder {
    response
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
    response
}

/// The page of one game. The id is checked here so that a mistyped link
/// says so at once; whether the game exists, the page learns from `/v1`.
#[get("/games/{id}")]
pub async fn game_page(id: web::Path<String>) -> HttpResponse {
    if Uuid::parse_str(&id).is_err() {
        return hardened(HttpResponse::NotFound())
            .content_type(ContentType::plaintext())
            .body("Not a game id: a game's page is /games/<its UUID>.\n");
    }
    hardened(HttpResponse::Ok())
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .content_type(ContentType::html())
        .body(PAGE)
}

#[derive(serde::Deserialize)]
pub struct OpenGame {
    id: String,
}

/// The home page's "open a game" form: `/games?id=…` → that game's page.
#[get("/games")]
pub async fn open_game(query: web::Query<OpenGame>) -> HttpResponse {
    let id = query.id.trim();
    match Uuid::parse_str(id) {
        Ok(id) => HttpResponse::SeeOther()
            .insert_header((header::LOCATION, format!("/games/{id}")))
            .finish(),
        Err(_) => hardened(HttpResponse::NotFound())
            .content_type(ContentType::plaintext())
            .body("Not a game id: paste the UUID that created the game, such as 1b4e28ba-2fa1-11d2-883f-0016d3cca427.\n"),
    }
}

/// The page's styles and scripts.
#[get("/viewer/{name:.*}")]
pub async fn asset(name: web::Path<String>) -> HttpResponse {
    match ASSETS.iter().find(|(asset, _, _)| *asset == name.as_str()) {
        Some((_, content_type, body)) => hardened(HttpResponse::Ok())
            // Assets change only with the binary; revalidate cheaply.
            .insert_header((header::CACHE_CONTROL, "no-cache"))
            .insert_header((header::CONTENT_TYPE, *content_type))
            .body(*body),
        None => HttpResponse::NotFound()
            .content_type(ContentType::plaintext())
            .body("No such file.\n"),
    }
}

/// The assets' names and sizes, for the size budget's test.
pub fn assets() -> impl Iterator<Item = (&'static str, usize)> {
    std::iter::once(("index.html", PAGE.len()))
        .chain(ASSETS.iter().map(|(name, _, body)| (*name, body.len())))
}

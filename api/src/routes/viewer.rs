//! The umpire's desk: a replay viewer page for any game, at `/games/{id}`.
//!
//! The page is static HTML, CSS and JavaScript modules compiled into the
//! binary (`api/viewer/`): no build step, nothing fetched from elsewhere, so
//! it works offline. It holds no game data itself: the browser reads
//! everything from `/v1` with the viewer's own token, so it sees exactly
//! what that viewer may see through the API and nothing else. The token is
//! kept in the tab's session storage and sent as a header, never in a URL.
//! It knows a game only by the id `/v1` gives: it loads that game's module,
//! `games/<game>.js`, if there is one, and shows any other game as its
//! state's JSON, so adding a game changes nothing here.
//! Outside `/v1` and so outside the OpenAPI document.

use actix_web::http::header::{self, ContentType};
use actix_web::{get, web, HttpResponse};
use include_dir::{include_dir, Dir, File};
use uuid::Uuid;

/// Every file of the page, as it is in `api/viewer/` (`build.rs` rebuilds
/// the crate when one is added), so a game's module is served once it is
/// written, with no list to keep.
static VIEWER: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/viewer");

/// For working on the page: `UMPIRE_VIEWER_DIR=api/viewer` serves the files
/// from that directory as they are on disk, read on each request, so an
/// edit shows on reload without rebuilding. Only names the page could load
/// are read (letters, digits, `_`, `-`, one dot before `js`/`css`, one
/// folder deep); without the variable the compiled-in files are served.
fn development_dir() -> Option<&'static std::path::Path> {
    static DIR: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::var_os("UMPIRE_VIEWER_DIR").map(std::path::PathBuf::from)?;
        tracing::warn!(dir = %dir.display(), "serving the page's files from disk (UMPIRE_VIEWER_DIR), for development");
        Some(dir)
    })
    .as_deref()
}

fn from_development_dir(name: &str) -> Option<Vec<u8>> {
    let dir = development_dir()?;
    let plain = |part: &str| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
            && !part.starts_with('.')
    };
    let parts: Vec<&str> = name.split('/').collect();
    if parts.len() > 2 || !parts.iter().all(|part| plain(part)) {
        return None;
    }
    std::fs::read(dir.join(name)).ok()
}

/// The page: the same for every game and viewer.
fn page() -> std::borrow::Cow<'static, str> {
    html_file("index.html")
}

/// One of the pages' HTML files (`index.html`, `new.html`, `join.html`).
fn html_file(name: &'static str) -> std::borrow::Cow<'static, str> {
    if let Some(bytes) = from_development_dir(name) {
        return String::from_utf8_lossy(&bytes).into_owned().into();
    }
    VIEWER
        .get_file(name)
        .and_then(File::contents_utf8)
        .unwrap_or_else(|| panic!("api/viewer/{name} is compiled in"))
        .into()
}

/// An HTML page, hardened as the game's page is.
fn html_page(text: std::borrow::Cow<'static, str>) -> HttpResponse {
    hardened(HttpResponse::Ok())
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .content_type(ContentType::html())
        .body(match text {
            std::borrow::Cow::Borrowed(text) => actix_web::body::BoxBody::new(text),
            std::borrow::Cow::Owned(text) => actix_web::body::BoxBody::new(text),
        })
}

/// Creating a game from a page: the game, its options and clock, then the
/// umpire's link and one invitation link per seat (`new.html`).
#[get("/new")]
pub async fn new_game_page() -> HttpResponse {
    html_page(html_file("new.html"))
}

/// Taking a seat: `/join#<code>` redeems the invitation's code (from the
/// fragment, which no browser sends to a server) and opens the game as the
/// seat (`join.html`).
#[get("/join")]
pub async fn join_page() -> HttpResponse {
    html_page(html_file("join.html"))
}

/// Scripts and styles only from this origin, requests only to it, no
/// framing: a game's page cannot be made to run or send anything else.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

fn hardened(response: actix_web::HttpResponseBuilder) -> actix_web::HttpResponseBuilder {
    crate::security_headers::page(response, CONTENT_SECURITY_POLICY)
}

/// The page of one game. The id is checked here so that a mistyped link
/// says so at once; whether the game exists, the page learns from `/v1`.
#[get("/games/{id}")]
pub async fn game_page(id: web::Path<String>) -> HttpResponse {
    if Uuid::parse_str(&id).is_err() {
        return not_a_game_id("A game's page is /games/ followed by its id, a UUID.");
    }
    hardened(HttpResponse::Ok())
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .content_type(ContentType::html())
        .body(match page() {
            std::borrow::Cow::Borrowed(text) => actix_web::body::BoxBody::new(text),
            std::borrow::Cow::Owned(text) => actix_web::body::BoxBody::new(text),
        })
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
        Err(_) => not_a_game_id(
            "Paste the id the game was created with, a UUID such as 1b4e28ba-2fa1-11d2-883f-0016d3cca427.",
        ),
    }
}

/// A mistyped game id, said on a page a person can read, with the way back
/// to the home page's Open box (the id typed is not echoed: nothing a link
/// carries is written into the page).
fn not_a_game_id(hint: &str) -> HttpResponse {
    hardened(HttpResponse::NotFound())
        .content_type(ContentType::html())
        .body(format!(
            "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>Umpire · not a game id</title>\n<link rel=\"icon\" href=\"data:,\">\n\
             <link rel=\"stylesheet\" href=\"/viewer/viewer.css\">\n\
             <link rel=\"stylesheet\" href=\"/viewer/seats.css\">\n</head>\n<body>\n\
             <header class=\"bar\"><a class=\"brand\" href=\"/\">Umpire</a></header>\n\
             <main class=\"sheet\" id=\"not-a-game-id\">\n<h1>Not a game id</h1>\n<p>{hint}</p>\n\
             <p><a href=\"/\">Back to the home page</a>, to open another game or start one.</p>\n\
             </main>\n</body>\n</html>\n"
        ))
}

/// The page's styles and scripts: the files under `api/viewer/` with a
/// type a page loads (the page itself is `/games/{id}`).
#[get("/viewer/{name:.*}")]
pub async fn asset(name: web::Path<String>) -> HttpResponse {
    match served(&name) {
        Some((content_type, body)) => hardened(HttpResponse::Ok())
            // Assets change only with the binary; revalidate cheaply.
            .insert_header((header::CACHE_CONTROL, "no-cache"))
            .insert_header((header::CONTENT_TYPE, content_type))
            .body(match body {
                std::borrow::Cow::Borrowed(bytes) => actix_web::body::BoxBody::new(bytes),
                std::borrow::Cow::Owned(bytes) => actix_web::body::BoxBody::new(bytes),
            }),
        None => HttpResponse::NotFound()
            .content_type(ContentType::plaintext())
            .body("No such file.\n"),
    }
}

/// The file at `name` under `api/viewer/` with its content type, if it is
/// one the page loads.
fn served(name: &str) -> Option<(&'static str, std::borrow::Cow<'static, [u8]>)> {
    let content_type = match std::path::Path::new(name).extension()?.to_str()? {
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        _ => return None,
    };
    if let Some(bytes) = from_development_dir(name) {
        return Some((content_type, bytes.into()));
    }
    Some((content_type, VIEWER.get_file(name)?.contents().into()))
}

/// The name of every file the page loads, for the tests of what is served:
/// `index.html` (served as `/games/{id}`), then each asset's under `/viewer/`.
pub fn assets() -> Vec<&'static str> {
    let mut files = vec![];
    every_file(&VIEWER, &mut files);
    std::iter::once("index.html")
        .chain(files.into_iter().filter_map(|file| {
            let name = file.path().to_str()?;
            served(name).map(|_| name)
        }))
        .collect()
}

fn every_file(dir: &'static Dir<'static>, out: &mut Vec<&'static File<'static>>) {
    out.extend(dir.files());
    for inner in dir.dirs() {
        every_file(inner, out);
    }
}

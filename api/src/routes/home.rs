//! The root page: where a person who opens the service's address in a
//! browser goes next. Not part of the versioned API (and so not in its
//! document).

use actix_web::http::header::{self, ContentType};
use actix_web::{route, HttpResponse};

const PAGE: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Umpire</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; color: #1b1b1b; }
a { color: #0b5cad; }
code { background: #f2f2f2; padding: 0 .25rem; }
</style>
</head>
<body>
<h1>Umpire</h1>
<p>Event-sourced replay and scoring for board games.</p>
<form action="/games" method="get">
<label for="id">Open a game's page — its board at any version, its timeline and, for its umpire, the audit:</label><br>
<input id="id" name="id" size="38" placeholder="the game's id" required>
<button type="submit">Open</button>
</form>
<ul>
<li>A game's page is <code>/games/&lt;id&gt;</code>: step through its versions with ← and →, and paste a seat's or the umpire's token to see what they saw.</li>
<li><a href="/docs/">The API, in Swagger UI</a> — every operation, with examples.</li>
<li><a href="/openapi.json">The OpenAPI document</a> — to generate a client.</li>
<li><a href="/v1/game-types">The games</a> — each with its seats and default options.</li>
</ul>
<p>A game is created with <code>POST /v1/games</code>; its answer holds the umpire's token and one token per seat.</p>
</body>
</html>
"#;

/// The page runs no script and loads nothing: its one style sheet is inline,
/// and its form opens a game's page on this origin. No one may frame it.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; \
    base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// `HEAD /` too: what a monitor or a link checker asks first.
#[route("/", method = "GET", method = "HEAD")]
pub async fn home() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .content_type(ContentType::html())
        .body(PAGE)
}

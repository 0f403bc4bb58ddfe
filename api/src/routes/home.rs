//! The root page: where a person who opens the service's address in a
//! browser goes next, with the list of recent games. Not part of the
//! versioned API (and so not in its document).
//!
//! The list is rendered here, from the same service call as `GET /v1/games`
//! (filters and the next page are query parameters of `/`: `?game=`,
//! `?status=`, `?after=`), so the page still runs no script. When the
//! service has an admin token the page lists nothing and says that the list
//! needs it: the page never asks a browser for the admin token, so that
//! token is never typed into, kept by or sent from a page (a script that
//! read it could be made to leak it; a form would put it in a URL).
//! Everything written into the page from the list is escaped.

use actix_web::http::header::{self, ContentType};
use actix_web::http::StatusCode;
use actix_web::{route, web, HttpRequest, HttpResponse, ResponseError};
use serde::Deserialize;
use umpire_service::listing::{GameList, GameListEntry, GameListQuery, GameStatusFilter};

use crate::error::ApiError;
use crate::AppState;

/// Games the home page shows at once.
pub const HOME_PAGE_GAMES: usize = 25;

const HEAD: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Umpire</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 3rem auto; padding: 0 1rem; color: #1b1b1b; }
a { color: #0b5cad; }
code { background: #f2f2f2; padding: 0 .25rem; }
.start { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; font-size: 1.1rem; }
.games { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .95rem; }
th, td { text-align: left; padding: .3rem .6rem .3rem 0; border-bottom: 1px solid #e2e2e2; vertical-align: top; }
td.id a { font-family: ui-monospace, monospace; font-size: .85rem; white-space: nowrap; }
td.created span { white-space: nowrap; }
@media (max-width: 700px) { .id-tail { display: none; } }
td.version { text-align: right; }
.finished { color: #555; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; margin: .5rem 0 1rem; }
.filters label { display: flex; flex-direction: column; font-size: .9rem; }
.pages { display: flex; gap: 1.5rem; margin-top: .75rem; }
.note { background: #f6f6f6; padding: .5rem .75rem; }
</style>
</head>
<body>
<h1>Umpire</h1>
<p>Event-sourced replay and scoring for board games.</p>
<p class="start"><a href="/new">Start a game</a> <a href="/rules">The rules of each game</a></p>
<form action="/games" method="get">
<label for="id">Open a game's page — its board at any version, its timeline and, for its umpire, the audit:</label><br>
<input id="id" name="id" size="38" placeholder="the game's id" required>
<button type="submit">Open</button>
</form>
"#;

const TAIL: &str = r#"<h2>The service</h2>
<ul>
<li>A game's page is <code>/games/&lt;id&gt;</code>: step through its versions with ← and →, and paste a seat's or the umpire's token to see what they saw.</li>
<li><a href="/docs/">The API, in Swagger UI</a> — every operation, with examples.</li>
<li><a href="/openapi.json">The OpenAPI document</a> — to generate a client.</li>
<li><a href="/v1/game-types">The games</a> — each with its seats and default options.</li>
</ul>
<p>A game is created with <code>POST /v1/games</code>; its answer holds the umpire's token and one token per seat. <code>GET /v1/games</code> lists the games.</p>
</body>
</html>
"#;

/// The page runs no script and loads nothing: its one style sheet is inline,
/// and its forms open a game's page or filter the list, on this origin. No
/// one may frame it.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; \
    base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The list's query parameters as the page's form sends them: an empty
/// field means "any".
#[derive(Debug, Default, Deserialize)]
struct ListFilters {
    #[serde(default)]
    game: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    after: String,
}

/// `HEAD /` too: what a monitor or a link checker asks first.
#[route("/", method = "GET", method = "HEAD")]
pub async fn home(state: web::Data<AppState>, request: HttpRequest) -> HttpResponse {
    let mut status = StatusCode::OK;
    let list = if state.admin_token.is_some() {
        r#"<h2>Games</h2>
<p class="note">This service has an admin token: its list of games is for the holder of that token, with <code>GET /v1/games</code> and <code>Authorization: Bearer &lt;admin token&gt;</code>. A game's page opens with its id.</p>
"#
        .to_string()
    } else {
        let filters = web::Query::<ListFilters>::from_query(request.query_string())
            .map(web::Query::into_inner)
            .unwrap_or_default();
        let listed = match list_query(&filters) {
            Ok(query) => state
                .service
                .list_games(&query)
                .await
                .map_err(ApiError::from),
            Err(error) => Err(error),
        };
        if let Err(error) = &listed {
            status = error.status_code();
        }
        games_section(&state, &filters, listed)
    };
    HttpResponse::build(status)
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .content_type(ContentType::html())
        .body(format!("{HEAD}{list}{TAIL}"))
}

fn list_query(filters: &ListFilters) -> Result<GameListQuery, ApiError> {
    let status = match filters.status.as_str() {
        "" => None,
        "in_progress" => Some(GameStatusFilter::InProgress),
        "finished" => Some(GameStatusFilter::Finished),
        _ => {
            return Err(ApiError::bad_request(
                "invalid_query",
                "The status is `in_progress` or `finished`.",
            ))
        }
    };
    let some = |text: &str| (!text.is_empty()).then(|| text.to_string());
    Ok(GameListQuery {
        game: some(&filters.game),
        status,
        after: some(&filters.after),
        limit: Some(HOME_PAGE_GAMES),
    })
}

/// The list's heading, filters, table and pages, or why there is none.
fn games_section(
    state: &AppState,
    filters: &ListFilters,
    listed: Result<GameList, ApiError>,
) -> String {
    let mut html = String::from("<h2>Games</h2>\n");
    html.push_str(&filter_form(state, filters));
    let list = match listed {
        Ok(list) => list,
        Err(error) => {
            html.push_str(&format!(
                "<p class=\"note\">The list cannot be shown: {}</p>\n",
                escape(&error.body().message)
            ));
            return html;
        }
    };
    if list.games.is_empty() {
        html.push_str("<p class=\"note\">No games here.</p>\n");
    } else {
        html.push_str(
            "<div class=\"games\"><table>\n<thead><tr><th>Game</th><th>Id</th>\
             <th>Version</th><th>Status</th><th>Created</th></tr></thead>\n<tbody>\n",
        );
        for entry in &list.games {
            html.push_str(&row(entry));
        }
        html.push_str("</tbody></table></div>\n");
    }
    let mut pages = Vec::new();
    if !filters.after.is_empty() {
        pages.push(format!(
            "<a href=\"{}\">First page</a>",
            escape(&page_link(filters, None))
        ));
    }
    if let Some(next) = &list.next {
        pages.push(format!(
            "<a href=\"{}\" rel=\"next\">Next page</a>",
            escape(&page_link(filters, Some(next)))
        ));
    }
    if !pages.is_empty() {
        html.push_str(&format!("<p class=\"pages\">{}</p>\n", pages.join(" ")));
    }
    html
}

fn filter_form(state: &AppState, filters: &ListFilters) -> String {
    let option = |value: &str, label: &str, chosen: &str| {
        format!(
            "<option value=\"{}\"{}>{}</option>",
            escape(value),
            if value == chosen { " selected" } else { "" },
            escape(label)
        )
    };
    let games: String = std::iter::once(option("", "Any game", &filters.game))
        .chain(
            state
                .service
                .registry()
                .games()
                .map(|game| option(game.id(), game_name(game.id()), &filters.game)),
        )
        .collect();
    let statuses: String = [
        ("", "Any status"),
        ("in_progress", "In progress"),
        ("finished", "Finished"),
    ]
    .iter()
    .map(|(value, label)| option(value, label, &filters.status))
    .collect();
    format!(
        "<form class=\"filters\" action=\"/\" method=\"get\">\
         <label>Game <select name=\"game\">{games}</select></label>\
         <label>Status <select name=\"status\">{statuses}</select></label>\
         <button type=\"submit\">Show</button></form>\n"
    )
}

/// A game's name for people (`Draft & Cider`), its id for a game without a
/// rule page.
fn game_name(game: &str) -> &str {
    super::rules::game_title(game).unwrap_or(game)
}

fn row(entry: &GameListEntry) -> String {
    // Some games name their seats by number: "won by seat 3", not "by 3".
    let seat = |name: &String| {
        if name.bytes().all(|byte| byte.is_ascii_digit()) {
            format!("seat {name}")
        } else {
            name.clone()
        }
    };
    let status = match (&entry.winners, entry.finished) {
        (Some(winners), true) if !winners.is_empty() => {
            let winners: Vec<String> = winners.iter().map(seat).collect();
            format!("Finished — won by {}", winners.join(", "))
        }
        // No winner among several seats is a draw; a solo game has none.
        (Some(_), true) if entry.seats.len() > 1 => "Finished — a draw".to_string(),
        (_, true) => "Finished".to_string(),
        (_, false) => "In progress".to_string(),
    };
    // A narrow screen shows the id's first eight digits; the link is whole.
    let id = entry.id.to_string();
    let (id_head, id_tail) = id.split_at(8);
    format!(
        "<tr{}><td>{}</td><td class=\"id\"><a href=\"/games/{id}\" title=\"{id}\">{id_head}<span class=\"id-tail\">{id_tail}</span></a></td>\
         <td class=\"version\">{}</td><td>{}</td><td class=\"created\"><time datetime=\"{}\">{}</time></td></tr>\n",
        if entry.finished {
            " class=\"finished\""
        } else {
            ""
        },
        escape(game_name(&entry.game)),
        entry.version,
        escape(&status),
        escape(&entry.created_at),
        shown_time(&entry.created_at),
    )
}

/// `2026-11-27 03:48 UTC` from an RFC 3339 time, as HTML that wraps between
/// the day and the time only (the text as given, escaped, when it is not).
fn shown_time(rfc3339: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(rfc3339)
        .map(|time| {
            time.with_timezone(&chrono::Utc)
                .format("<span>%Y-%m-%d</span> <span>%H:%M UTC</span>")
                .to_string()
        })
        .unwrap_or_else(|_| escape(rfc3339))
}

/// `/` with the filters and, for a next page, its cursor.
fn page_link(filters: &ListFilters, after: Option<&str>) -> String {
    let mut query = Vec::new();
    for (name, value) in [
        ("game", filters.game.as_str()),
        ("status", filters.status.as_str()),
        ("after", after.unwrap_or("")),
    ] {
        if !value.is_empty() {
            query.push(format!("{name}={}", percent_encoded(value)));
        }
    }
    if query.is_empty() {
        "/".to_string()
    } else {
        format!("/?{}", query.join("&"))
    }
}

/// Every byte but unreserved URL characters as `%XX`.
fn percent_encoded(value: &str) -> String {
    value
        .bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (byte as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// Text as HTML text or an attribute's value.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished_with(seats: &[&str], winners: Option<&[&str]>) -> GameListEntry {
        GameListEntry {
            id: uuid::Uuid::nil(),
            game: "treeblox".to_string(),
            seats: seats.iter().map(|seat| seat.to_string()).collect(),
            version: 9,
            finished: true,
            winners: winners.map(|winners| winners.iter().map(|w| w.to_string()).collect()),
            created_at: "2026-11-27T03:48:00Z".to_string(),
            last_event_at: "2026-11-27T03:50:00Z".to_string(),
        }
    }

    #[test]
    fn a_finished_row_says_who_won_or_that_it_was_a_draw() {
        let won = row(&finished_with(&["dark", "light"], Some(&["light"])));
        assert!(won.contains("Finished — won by light"), "{won}");
        let draw = row(&finished_with(&["dark", "light"], Some(&[])));
        assert!(draw.contains("Finished — a draw"), "{draw}");
        let solo = row(&finished_with(&["0"], Some(&[])));
        assert!(solo.contains("<td>Finished</td>"), "{solo}");
        let unknown = row(&finished_with(&["dark", "light"], None));
        assert!(unknown.contains("<td>Finished</td>"), "{unknown}");
        assert!(won.contains("<td>Treeblox</td>"), "the game's name: {won}");
    }
}

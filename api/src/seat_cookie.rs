//! The seat's cookie: how a game's own page keeps a seat in its browser
//! (a page session, `umpire_service::seat_devices`), as HTTP carries it.
//!
//! `umpire_seat=<secret>; Path=/v1/games/<id>; Max-Age=<30 days>; HttpOnly;
//! SameSite=Strict`, and `Secure` when the page that asked for it was
//! served over https (its `Origin` says so). The path is the game's API:
//! the page itself (`/games/<id>`) is the same for everyone and reads all it
//! shows from `/v1/games/<id>/…`, so the cookie goes to nothing else — not
//! to another game's API, not to the pages, not to a redemption. HttpOnly
//! keeps it from every script, the page's own included; SameSite=Strict
//! keeps browsers from sending it with a request another site starts.
//!
//! The API then takes it only from the page's own origin ([`from_own_origin`]):
//! a cookie is shared by every port of a host name and by same-site
//! origins, which SameSite does not tell apart, so a request carrying it is
//! refused 403 `cross_site_request` unless the browser says it comes from
//! this very origin: `Sec-Fetch-Site: same-origin` (a header no script can
//! set, sent by every current browser; `none`, a person typing the address,
//! is accepted for reads), and an `Origin`, when sent, naming the `Host` the
//! request was sent to. A request that changes something must carry one of
//! the two. A bearer token wins over the cookie, which is then not even
//! looked at; no client but the page needs the cookie.

use actix_web::http::header::{self, HeaderValue};
use actix_web::HttpRequest;
use umpire_service::seat_devices::{PageSession, PAGE_SESSION_DAYS};
use umpire_service::ServiceError;
use uuid::Uuid;

use crate::error::ApiError;

/// The cookie's name.
pub const NAME: &str = "umpire_seat";

/// The path a game's cookie is scoped to: the game's API.
pub fn path_of(game_id: Uuid) -> String {
    format!("/v1/games/{game_id}")
}

/// The `Set-Cookie` value that keeps `session` in the browser.
pub fn kept(session: &PageSession, secure: bool) -> HeaderValue {
    let max_age = PAGE_SESSION_DAYS * 24 * 60 * 60;
    header_value(format!(
        "{NAME}={}; Path={}; Max-Age={max_age}; HttpOnly; SameSite=Strict{}",
        session.secret,
        path_of(session.game_id),
        if secure { "; Secure" } else { "" }
    ))
}

/// The `Set-Cookie` value that removes the cookie of `game_id`.
pub fn cleared(game_id: Uuid, secure: bool) -> HeaderValue {
    header_value(format!(
        "{NAME}=; Path={}; Max-Age=0; HttpOnly; SameSite=Strict{}",
        path_of(game_id),
        if secure { "; Secure" } else { "" }
    ))
}

fn header_value(text: String) -> HeaderValue {
    HeaderValue::from_str(&text).expect("hex digits, a path of a UUID and attributes")
}

/// The seat cookie's value in `request`, if it carries one. More than one
/// is refused: the service sets one per game path, so a second was set by
/// someone else (another origin of this host name), and neither is to be
/// trusted over the other.
pub fn value(request: &HttpRequest) -> Result<Option<String>, ApiError> {
    let mut found = None;
    for line in request.headers().get_all(header::COOKIE) {
        let Ok(line) = line.to_str() else { continue };
        for pair in line.split(';') {
            let Some((name, value)) = pair.trim().split_once('=') else {
                continue;
            };
            if name.trim() != NAME {
                continue;
            }
            if found.is_some() {
                return Err(ApiError::bad_request(
                    "ambiguous_seat_cookie",
                    "This request carries more than one seat cookie for this game; only the \
                     service sets it, once per game. Clear this site's cookies and take the \
                     seat again.",
                ));
            }
            found = Some(value.trim().to_string());
        }
    }
    Ok(found.filter(|value| !value.is_empty() && value.len() <= 256))
}

/// Whether `request` comes from a page of this very origin, as its browser
/// says: see the module's documentation. `safe`: a request that changes
/// nothing (GET, HEAD), which a person may also make by typing its address.
pub fn from_own_origin(request: &HttpRequest, safe: bool) -> bool {
    let headers = request.headers();
    let site = headers
        .get("sec-fetch-site")
        .map(|value| value.to_str().unwrap_or_default());
    let site_agrees = match site {
        Some("same-origin") => true,
        Some("none") => safe,
        Some(_) => false,
        // Not sent: an older browser, or not a browser; `Origin` decides.
        None => true,
    };
    let origin_agrees = match headers.get(header::ORIGIN) {
        Some(origin) => origin_names_host(origin, request),
        // Browsers send `Origin` with every request that may change
        // something: without it, only `Sec-Fetch-Site` or a read vouches.
        None => site.is_some() || safe,
    };
    site_agrees && origin_agrees
}

/// Whether the page that sent `request` was served over https, by its
/// `Origin`: the cookie it is given must then be `Secure`.
pub fn from_https_page(request: &HttpRequest) -> bool {
    request
        .headers()
        .get(header::ORIGIN)
        .and_then(|origin| origin.to_str().ok())
        .is_some_and(|origin| origin.starts_with("https://"))
}

/// Whether `Origin` (`scheme://host[:port]`) names the host and port the
/// request was sent to (its `Host`, as a proxy in front must pass it on:
/// `deploy/nginx.conf` does), a scheme's default port written or not.
fn origin_names_host(origin: &HeaderValue, request: &HttpRequest) -> bool {
    let Some((scheme, authority)) = origin.to_str().ok().and_then(|o| o.split_once("://")) else {
        return false;
    };
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .or_else(|| {
            request
                .uri()
                .authority()
                .map(|authority| authority.as_str())
        });
    let Some(host) = host else { return false };
    let default_port = match scheme {
        "http" => ":80",
        "https" => ":443",
        _ => return false,
    };
    let plain = |authority: &str| {
        authority
            .strip_suffix(default_port)
            .unwrap_or(authority)
            .to_ascii_lowercase()
    };
    !authority.contains('/') && plain(authority) == plain(host)
}

/// The refusal of a seat's cookie sent from another origin.
pub fn cross_site() -> ApiError {
    ApiError::from(ServiceError::Forbidden {
        code: "cross_site_request",
        message: "This request carries the seat's cookie but does not come from the game's own \
                  page (Sec-Fetch-Site, Origin): only that page may use it. A client sends the \
                  seat's token as Authorization: Bearer <token> instead."
            .into(),
    })
}

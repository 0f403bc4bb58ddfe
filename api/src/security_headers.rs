//! Headers that keep a browser from framing, sniffing or running anything
//! the service did not mean as a page, on every answer that does not set its
//! own (the viewer's pages and the home page set stricter or different ones).
//!
//! An answer without a policy of its own gets [`DEFAULT_POLICY`]: it may load
//! nothing and be framed by no one, which is right for JSON, the metrics and
//! every error. Swagger UI (`/docs/`, its files from utoipa-swagger-ui, which
//! set no header) gets [`SWAGGER_UI_POLICY`].

use actix_web::dev::ServiceResponse;
use actix_web::http::header::{self, HeaderValue};

/// Nothing loads, nothing frames: for answers that are not pages.
pub const DEFAULT_POLICY: &str =
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// What the vendored Swagger UI needs and no more: its own scripts (its page
/// has no inline script; its configuration is `swagger-initializer.js`), its
/// own style sheets and the inline styles its components set, its icons
/// (`data:` images in its CSS), and requests to this origin only (the
/// document, and "Try it out").
pub const SWAGGER_UI_POLICY: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
    base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// A page's own headers: its content security policy, no referrer, and
/// `nosniff` (the viewer's pages and the rule pages, each with its policy).
pub fn page(
    mut response: actix_web::HttpResponseBuilder,
    policy: &'static str,
) -> actix_web::HttpResponseBuilder {
    response
        .insert_header((header::CONTENT_SECURITY_POLICY, policy))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
    response
}

/// Adds the policy and `nosniff` to `response` where it has none.
pub fn add<B>(response: &mut ServiceResponse<B>) {
    // Checked when compiled: made at run time, each answer's policy was
    // checked a byte at a time (about 1,000 instructions a request).
    static DEFAULT: HeaderValue = HeaderValue::from_static(DEFAULT_POLICY);
    static SWAGGER_UI: HeaderValue = HeaderValue::from_static(SWAGGER_UI_POLICY);
    static NOSNIFF: HeaderValue = HeaderValue::from_static("nosniff");
    let policy = if response.request().path().starts_with("/docs/") {
        &SWAGGER_UI
    } else {
        &DEFAULT
    };
    let headers = response.headers_mut();
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy.clone());
    }
    if !headers.contains_key(header::X_CONTENT_TYPE_OPTIONS) {
        headers.insert(header::X_CONTENT_TYPE_OPTIONS, NOSNIFF.clone());
    }
}

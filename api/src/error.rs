//! The one mapping from errors to HTTP: each [`ServiceError`] kind to its
//! status and headers, and the errors only HTTP has (a body that stalls, a
//! body or query actix cannot read), all answered with the JSON envelope
//! `{code, message, rule?, details?}` ([`ErrorBody`]).

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
pub use umpire_service::ErrorBody;
use umpire_service::ServiceError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error(transparent)]
    Service(#[from] ServiceError),
    /// 415: a JSON body sent without `Content-Type: application/json`.
    #[error("The body must be JSON, sent with Content-Type: application/json.")]
    UnsupportedMediaType,
    /// 405: the path is served, but not with this method (see
    /// `wrong_method.rs`); `Allow` lists the methods it answers.
    #[error(
        "This path does not answer this method; it answers {}.",
        listed(allowed)
    )]
    MethodNotAllowed {
        allowed: Vec<actix_web::http::Method>,
    },
    /// 408: the request body stalled (see `body_deadline.rs`).
    #[error("The request body did not arrive in time: no more than {idle_seconds} s may pass between its parts, and {total_seconds} s in all.")]
    BodyTimeout {
        idle_seconds: u64,
        total_seconds: u64,
    },
    /// 503 `busy`: the connection was not admitted (`connections.rs`); the
    /// answer closes it.
    #[error("{0}")]
    ConnectionNotAdmitted(&'static str),
    /// A seat's cookie that no longer gives a seat (`page_session_ended`):
    /// the error, answered with `clear_cookie` (`seat_cookie::cleared`) as
    /// its `Set-Cookie`, so that the browser's next request is a
    /// spectator's.
    #[error("{error}")]
    SeatCookieEnded {
        // Boxed: beside the header it would make every ApiError larger.
        error: Box<ServiceError>,
        clear_cookie: actix_web::http::header::HeaderValue,
    },
}

impl From<umpire_storage::StoreError> for ApiError {
    fn from(error: umpire_storage::StoreError) -> Self {
        ApiError::Service(error.into())
    }
}

impl ApiError {
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        ServiceError::invalid(code, message).into()
    }

    pub fn too_large(message: impl Into<String>) -> Self {
        ServiceError::TooLarge {
            message: message.into(),
        }
        .into()
    }

    pub fn internal(cause: impl Into<String>) -> Self {
        ServiceError::Internal(cause.into()).into()
    }

    pub fn body_timeout() -> Self {
        ApiError::BodyTimeout {
            idle_seconds: crate::body_deadline::BODY_IDLE.as_secs(),
            total_seconds: crate::body_deadline::BODY_TOTAL.as_secs(),
        }
    }

    pub fn body(&self) -> ErrorBody {
        match self {
            ApiError::Service(error) => error.body(),
            ApiError::SeatCookieEnded { error, .. } => error.body(),
            ApiError::BodyTimeout { .. } => self.http_only_body("body_timeout"),
            ApiError::UnsupportedMediaType => self.http_only_body("unsupported_content_type"),
            ApiError::MethodNotAllowed { .. } => self.http_only_body("method_not_allowed"),
            ApiError::ConnectionNotAdmitted(_) => self.http_only_body("busy"),
        }
    }
}

/// `GET`, `GET and HEAD`, `GET, HEAD and POST`.
fn listed(methods: &[actix_web::http::Method]) -> String {
    let names: Vec<&str> = methods.iter().map(|method| method.as_str()).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => "nothing".to_string(),
    }
}

impl ApiError {
    fn http_only_body(&self, code: &str) -> ErrorBody {
        ErrorBody {
            code: code.into(),
            message: self.to_string(),
            rule: None,
            rule_url: None,
            details: None,
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        let error = match self {
            ApiError::Service(error) => error,
            ApiError::SeatCookieEnded { error, .. } => error.as_ref(),
            ApiError::BodyTimeout { .. } => return StatusCode::REQUEST_TIMEOUT,
            ApiError::UnsupportedMediaType => return StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::MethodNotAllowed { .. } => return StatusCode::METHOD_NOT_ALLOWED,
            ApiError::ConnectionNotAdmitted(_) => return StatusCode::SERVICE_UNAVAILABLE,
        };
        match error {
            ServiceError::Invalid { .. } => StatusCode::BAD_REQUEST,
            ServiceError::Unauthenticated { .. } => StatusCode::UNAUTHORIZED,
            ServiceError::Forbidden { .. } => StatusCode::FORBIDDEN,
            ServiceError::NotFound { .. } => StatusCode::NOT_FOUND,
            ServiceError::Gone { .. } => StatusCode::GONE,
            ServiceError::VersionConflict { .. }
            | ServiceError::AlreadyExists { .. }
            | ServiceError::Contended { .. } => StatusCode::CONFLICT,
            ServiceError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ServiceError::Violation(_) | ServiceError::Unprocessable { .. } => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            ServiceError::TooManyRefusals { .. }
            | ServiceError::TooManyStreams { .. }
            | ServiceError::Throttled { .. } => StatusCode::TOO_MANY_REQUESTS,
            ServiceError::Unavailable(_) | ServiceError::Busy { .. } => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ServiceError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        match self {
            ApiError::Service(ServiceError::Internal(cause)) => {
                tracing::error!(cause = %cause, "internal error")
            }
            ApiError::Service(ServiceError::Unavailable(cause)) => {
                tracing::warn!(cause = %cause, "database unavailable")
            }
            _ => {}
        }
        match self {
            ApiError::Service(ServiceError::Unauthenticated { .. }) => {
                response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
            }
            ApiError::SeatCookieEnded { clear_cookie, .. } => {
                response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
                response.insert_header((header::SET_COOKIE, clear_cookie.clone()));
            }
            ApiError::Service(
                ServiceError::Unavailable(_)
                | ServiceError::Contended { .. }
                | ServiceError::Busy { .. }
                | ServiceError::TooManyStreams { .. },
            ) => {
                response.insert_header((header::RETRY_AFTER, "1"));
            }
            ApiError::Service(
                ServiceError::TooManyRefusals {
                    retry_after_seconds,
                }
                | ServiceError::Throttled {
                    retry_after_seconds,
                    ..
                },
            ) => {
                response.insert_header((header::RETRY_AFTER, retry_after_seconds.to_string()));
            }
            ApiError::MethodNotAllowed { allowed } => {
                response.insert_header((
                    header::ALLOW,
                    header::HeaderValue::from_str(
                        &allowed
                            .iter()
                            .map(|method| method.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    )
                    .expect("method names are header values"),
                ));
            }
            // The rest of the body may still trickle in: do not wait for it.
            ApiError::BodyTimeout { .. } => {
                response.force_close();
            }
            ApiError::ConnectionNotAdmitted(_) => {
                response.insert_header((header::RETRY_AFTER, "1"));
                response.force_close();
            }
            _ => {}
        }
        response.json(self.body())
    }
}

/// JSON body extractor failures as the envelope (actix answers text/plain by default).
pub fn json_error(
    error: actix_web::error::JsonPayloadError,
    _: &actix_web::HttpRequest,
) -> actix_web::Error {
    use actix_web::error::JsonPayloadError;
    let api = match &error {
        JsonPayloadError::OverflowKnownLength { length, limit } => {
            ApiError::too_large(format!("The body is {length} bytes; the limit is {limit}."))
        }
        JsonPayloadError::Overflow { limit } => ApiError::too_large(format!(
            "The body is larger than the limit of {limit} bytes."
        )),
        JsonPayloadError::Payload(payload) if crate::body_deadline::timed_out(payload) => {
            ApiError::body_timeout()
        }
        JsonPayloadError::ContentType => ApiError::UnsupportedMediaType,
        JsonPayloadError::Deserialize(inner) => ApiError::bad_request(
            "malformed_json",
            format!("The body is not valid for this request: {inner}."),
        ),
        other => ApiError::bad_request(
            "malformed_json",
            format!("The body could not be read: {other}."),
        ),
    };
    api.into()
}

pub fn query_error(
    error: actix_web::error::QueryPayloadError,
    _: &actix_web::HttpRequest,
) -> actix_web::Error {
    ApiError::bad_request(
        "invalid_query",
        format!("The query string is not valid here: {error}."),
    )
    .into()
}

pub fn path_error(
    error: actix_web::error::PathError,
    _: &actix_web::HttpRequest,
) -> actix_web::Error {
    let cause = match &error {
        actix_web::error::PathError::Deserialize(inner) => inner.to_string(),
        other => other.to_string(),
    };
    let message = format!("The game id in the path is not a UUID: {cause}.");
    // Every path parameter is a game id: one that is not even a UUID names
    // no game, and says so with its own code.
    ApiError::from(ServiceError::NotFound {
        code: "invalid_game_id",
        message,
    })
    .into()
}

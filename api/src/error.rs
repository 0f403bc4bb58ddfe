//! The one error type of the API and its mapping to HTTP statuses and the
//! JSON error envelope `{code, message, rule?, details?}`.

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use serde_json::Value;
use umpire_domain::{GameError, Violation};
use umpire_storage::StoreError;
use utoipa::ToSchema;

/// The JSON body of every error response.
#[derive(Debug, Clone, Serialize, serde::Deserialize, ToSchema)]
pub struct ErrorBody {
    /// Stable, machine-readable: `version_conflict`, `invalid_token`,
    /// or a game's violation code such as `arboretum.cell_not_adjacent`.
    #[schema(example = "arboretum.cell_not_adjacent")]
    pub code: String,
    /// A sentence a person understands.
    #[schema(example = "D5 is not orthogonally adjacent to any planted card.")]
    pub message: String,
    /// The rule book section that decided a violation.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "arboretum §4")]
    pub rule: Option<String>,
    /// Extra structured facts, e.g. `{"expected": 3, "actual": 5}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400: the request itself is malformed.
    #[error("{message}")]
    BadRequest { code: &'static str, message: String },
    /// 401: no token, or a token that is not valid for this game.
    #[error("{message}")]
    Unauthorized { code: &'static str, message: String },
    /// 403: a valid token that may not do this.
    #[error("{message}")]
    Forbidden { code: &'static str, message: String },
    /// 404
    #[error("{message}")]
    NotFound { code: &'static str, message: String },
    /// 409: the game moved on since the version the client expected.
    #[error("the game is at version {actual}, not the expected {expected}")]
    VersionConflict { expected: u64, actual: u64 },
    /// 409: the game is so busy that the submission lost every race for its
    /// turn within the deadline; nothing was applied, send it again.
    #[error("{message}")]
    Contended { message: String },
    /// 409: what the request would create is already there.
    #[error("{message}")]
    AlreadyExists { code: &'static str, message: String },
    /// 408: the request body stalled (see `body_deadline.rs`).
    #[error("The request body did not arrive in time: no more than {idle_seconds} s may pass between its parts, and {total_seconds} s in all.")]
    BodyTimeout {
        idle_seconds: u64,
        total_seconds: u64,
    },
    /// 413
    #[error("{message}")]
    PayloadTooLarge { message: String },
    /// 422: a rule of the game refused the action.
    #[error(transparent)]
    Violation(Violation),
    /// 422: well-formed but unacceptable for another reason; `details`
    /// carries structured facts where there are some (the failing event of
    /// a refused archive).
    #[error("{message}")]
    Unprocessable {
        code: &'static str,
        message: String,
        details: Option<Value>,
    },
    /// 429 `too_many_refusals`: this token's refused actions in this game
    /// came faster than the refusal budget refills (see `throttle.rs`); the
    /// action was decided but neither stored nor counted. `Retry-After` says
    /// when the next refusal will be accepted.
    #[error(
        "Too many refused actions from this token in this game; retry in {retry_after_seconds} s."
    )]
    TooManyRefusals { retry_after_seconds: u64 },
    /// 503: this instance is handling as many large bodies as it may at
    /// once; retry shortly.
    #[error("{message}")]
    Busy { message: String },
    /// 503: the database is down or saturated; retry shortly.
    #[error("service unavailable: {0}")]
    Unavailable(String),
    /// 500: says nothing inside; the cause goes to the log.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::BadRequest {
            code,
            message: message.into(),
        }
    }

    pub fn body_timeout() -> Self {
        ApiError::BodyTimeout {
            idle_seconds: crate::body_deadline::BODY_IDLE.as_secs(),
            total_seconds: crate::body_deadline::BODY_TOTAL.as_secs(),
        }
    }

    pub fn unprocessable(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::Unprocessable {
            code,
            message: message.into(),
            details: None,
        }
    }

    pub fn body(&self) -> ErrorBody {
        let (code, rule, details) = match self {
            ApiError::BadRequest { code, .. }
            | ApiError::Unauthorized { code, .. }
            | ApiError::Forbidden { code, .. }
            | ApiError::NotFound { code, .. }
            | ApiError::AlreadyExists { code, .. } => (code.to_string(), None, None),
            ApiError::Unprocessable { code, details, .. } => {
                (code.to_string(), None, details.clone())
            }
            ApiError::VersionConflict { expected, actual } => (
                "version_conflict".to_string(),
                None,
                Some(serde_json::json!({"expected": expected, "actual": actual})),
            ),
            ApiError::PayloadTooLarge { .. } => ("payload_too_large".to_string(), None, None),
            ApiError::Contended { .. } => ("contended".to_string(), None, None),
            ApiError::BodyTimeout { .. } => ("body_timeout".to_string(), None, None),
            ApiError::Violation(violation) => (
                violation.code.to_string(),
                Some(violation.rule.to_string()),
                None,
            ),
            ApiError::TooManyRefusals {
                retry_after_seconds,
            } => (
                "too_many_refusals".to_string(),
                None,
                Some(serde_json::json!({"retry_after_seconds": retry_after_seconds})),
            ),
            ApiError::Unavailable(_) => ("unavailable".to_string(), None, None),
            ApiError::Busy { .. } => ("busy".to_string(), None, None),
            ApiError::Internal(_) => ("internal".to_string(), None, None),
        };
        let message = match self {
            ApiError::Violation(violation) => violation.message.clone(),
            ApiError::Unavailable(_) => "The database is unavailable; retry shortly.".to_string(),
            ApiError::Internal(_) => {
                "Something went wrong on our side; it has been logged.".to_string()
            }
            other => other.to_string(),
        };
        ErrorBody {
            code,
            message,
            rule,
            details,
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden { .. } => StatusCode::FORBIDDEN,
            ApiError::NotFound { .. } => StatusCode::NOT_FOUND,
            ApiError::VersionConflict { .. }
            | ApiError::AlreadyExists { .. }
            | ApiError::Contended { .. } => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::BodyTimeout { .. } => StatusCode::REQUEST_TIMEOUT,
            ApiError::Violation(_) | ApiError::Unprocessable { .. } => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            ApiError::TooManyRefusals { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable(_) | ApiError::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            ApiError::Internal(cause) => tracing::error!(cause = %cause, "internal error"),
            ApiError::Unavailable(cause) => tracing::warn!(cause = %cause, "database unavailable"),
            _ => {}
        }
        let mut response = HttpResponse::build(self.status_code());
        match self {
            ApiError::Unauthorized { .. } => {
                response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
            }
            ApiError::Unavailable(_) | ApiError::Contended { .. } | ApiError::Busy { .. } => {
                response.insert_header((header::RETRY_AFTER, "1"));
            }
            // The rest of the body may still trickle in: do not wait for it.
            ApiError::BodyTimeout { .. } => {
                response.force_close();
            }
            ApiError::TooManyRefusals {
                retry_after_seconds,
            } => {
                response.insert_header((header::RETRY_AFTER, retry_after_seconds.to_string()));
            }
            _ => {}
        }
        response.json(self.body())
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::GameNotFound(id) => ApiError::NotFound {
                code: "game_not_found",
                message: format!("There is no game {id}."),
            },
            StoreError::Conflict { expected, actual } => {
                ApiError::VersionConflict { expected, actual }
            }
            StoreError::IdempotencyKeyReused => ApiError::unprocessable(
                "idempotency_key_reused",
                "This Idempotency-Key was already used with a different request.",
            ),
            StoreError::Unavailable(cause) => ApiError::Unavailable(cause),
            other => {
                ApiError::Internal(format!("{other}: {:?}", std::error::Error::source(&other)))
            }
        }
    }
}

impl From<GameError> for ApiError {
    fn from(error: GameError) -> Self {
        match error {
            GameError::UnknownGame(game) => ApiError::unprocessable(
                "unknown_game",
                format!("There is no game called `{game}`."),
            ),
            GameError::UnknownSeat { game, seat } => {
                ApiError::bad_request("unknown_seat", format!("`{seat}` is not a seat of {game}."))
            }
            GameError::Malformed { what, message, .. } => {
                let code = match what {
                    "action" => "invalid_action",
                    "options" => "invalid_options",
                    _ => "invalid_event",
                };
                ApiError::bad_request(code, format!("Malformed {what}: {message}."))
            }
            GameError::Violation(violation) => ApiError::Violation(violation),
        }
    }
}

/// JSON body extractor failures as the envelope (actix answers text/plain by default).
pub fn json_error(
    error: actix_web::error::JsonPayloadError,
    _: &actix_web::HttpRequest,
) -> actix_web::Error {
    use actix_web::error::JsonPayloadError;
    let api = match &error {
        JsonPayloadError::OverflowKnownLength { length, limit } => ApiError::PayloadTooLarge {
            message: format!("The body is {length} bytes; the limit is {limit}."),
        },
        JsonPayloadError::Overflow { limit } => ApiError::PayloadTooLarge {
            message: format!("The body is larger than the limit of {limit} bytes."),
        },
        JsonPayloadError::Payload(payload) if crate::body_deadline::timed_out(payload) => {
            ApiError::body_timeout()
        }
        JsonPayloadError::ContentType => ApiError::bad_request(
            "unsupported_content_type",
            "The body must be JSON with Content-Type: application/json.",
        ),
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
    ApiError::bad_request("invalid_query", format!("Invalid query string: {error}.")).into()
}

pub fn path_error(
    error: actix_web::error::PathError,
    _: &actix_web::HttpRequest,
) -> actix_web::Error {
    let message = match &error {
        actix_web::error::PathError::Deserialize(inner) => format!("Invalid path: {inner}."),
        other => format!("Invalid path: {other}."),
    };
    ApiError::NotFound {
        code: "game_not_found",
        message,
    }
    .into()
}

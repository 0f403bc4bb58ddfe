//! The one error the service layer returns, and the body every error is
//! described by. Which HTTP status each kind becomes is the API's business
//! (`api/src/error.rs`); the stable `code` and the sentence are decided here.

use serde::Serialize;
use serde_json::Value;
use umpire_domain::erased::Malformed;
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
    /// Where that section is served on this service, to link it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "/rules/arboretum#s4")]
    pub rule_url: Option<String>,
    /// Extra structured facts, e.g. `{"expected": 3, "actual": 5}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = facts)]
    pub details: Option<Value>,
}

/// An object of structured facts, whatever their names.
fn facts() -> utoipa::openapi::Object {
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::FreeForm(true)))
        .description(Some(
            "Extra structured facts, e.g. `{\"expected\": 3, \"actual\": 5}`.",
        ))
        .build()
}

/// Why the service did not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The request itself is malformed.
    #[error("{message}")]
    Invalid { code: &'static str, message: String },
    /// No credentials, or credentials not valid here.
    #[error("{message}")]
    Unauthenticated { code: &'static str, message: String },
    /// Valid credentials that may not do this.
    #[error("{message}")]
    Forbidden { code: &'static str, message: String },
    #[error("{message}")]
    NotFound { code: &'static str, message: String },
    /// What was asked for existed and is no more (an invitation used,
    /// expired or revoked).
    #[error("{message}")]
    Gone { code: &'static str, message: String },
    /// The game moved on since the version the client expected.
    #[error("The game is at version {actual}, not the expected {expected}.")]
    VersionConflict { expected: u64, actual: u64 },
    /// The game is so busy that the submission lost every race for its
    /// turn within the deadline; nothing was applied, send it again.
    #[error("{message}")]
    Contended { message: String },
    /// What the request would create is already there.
    #[error("{message}")]
    AlreadyExists { code: &'static str, message: String },
    /// More than a request may carry.
    #[error("{message}")]
    TooLarge { message: String },
    /// A rule of the game refused the action.
    #[error(transparent)]
    Violation(Violation),
    /// Well-formed but unacceptable for another reason; `details` carries
    /// structured facts where there are some (the failing event of a refused
    /// archive).
    #[error("{message}")]
    Unprocessable {
        code: &'static str,
        message: String,
        details: Option<Value>,
    },
    /// This token's refused actions in this game came faster than the
    /// refusal budget refills (see `throttle.rs`); the action was decided
    /// but neither stored nor counted.
    #[error(
        "Too many refused actions from this token in this game; retry in {retry_after_seconds} s."
    )]
    TooManyRefusals { retry_after_seconds: u64 },
    /// This client address did this faster than it may (`throttle.rs`):
    /// games created on an open service, failed invitation redemptions.
    /// Nothing was done.
    #[error("{message} Retry in {retry_after_seconds} s.")]
    Throttled {
        code: &'static str,
        message: String,
        retry_after_seconds: u64,
    },
    /// This client already holds as many live streams as one client may
    /// (by token, or by address for spectators); it may open another once
    /// one of its own ends.
    #[error(
        "This client already holds its limit of {limit} live streams on this instance; close one, \
         or read /events meanwhile."
    )]
    TooManyStreams { limit: usize },
    /// This instance is doing as much of this as it may at once.
    #[error("{message}")]
    Busy { message: String },
    /// The database is down or saturated; retry shortly.
    #[error("service unavailable: {0}")]
    Unavailable(String),
    /// A fault of ours: says nothing to the caller; the cause is logged.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ServiceError {
    pub fn invalid(code: &'static str, message: impl Into<String>) -> Self {
        ServiceError::Invalid {
            code,
            message: message.into(),
        }
    }

    pub fn unprocessable(code: &'static str, message: impl Into<String>) -> Self {
        ServiceError::Unprocessable {
            code,
            message: message.into(),
            details: None,
        }
    }

    /// The stable code, the sentence, and the structured facts.
    pub fn body(&self) -> ErrorBody {
        let (code, rule, details) = match self {
            ServiceError::Invalid { code, .. }
            | ServiceError::Unauthenticated { code, .. }
            | ServiceError::Forbidden { code, .. }
            | ServiceError::NotFound { code, .. }
            | ServiceError::Gone { code, .. }
            | ServiceError::AlreadyExists { code, .. } => (code.to_string(), None, None),
            ServiceError::Unprocessable { code, details, .. } => {
                (code.to_string(), None, details.clone())
            }
            ServiceError::VersionConflict { expected, actual } => (
                "version_conflict".to_string(),
                None,
                Some(serde_json::json!({"expected": expected, "actual": actual})),
            ),
            ServiceError::TooLarge { .. } => ("payload_too_large".to_string(), None, None),
            ServiceError::Contended { .. } => ("contended".to_string(), None, None),
            ServiceError::Violation(violation) => (
                violation.code.to_string(),
                Some(violation.rule.to_string()),
                None,
            ),
            ServiceError::TooManyRefusals {
                retry_after_seconds,
            } => (
                "too_many_refusals".to_string(),
                None,
                Some(serde_json::json!({"retry_after_seconds": retry_after_seconds})),
            ),
            ServiceError::Throttled {
                code,
                retry_after_seconds,
                ..
            } => (
                code.to_string(),
                None,
                Some(serde_json::json!({"retry_after_seconds": retry_after_seconds})),
            ),
            ServiceError::Unavailable(_) => ("unavailable".to_string(), None, None),
            ServiceError::TooManyStreams { limit } => (
                "too_many_streams".to_string(),
                None,
                Some(serde_json::json!({"limit": limit})),
            ),
            ServiceError::Busy { .. } => ("busy".to_string(), None, None),
            ServiceError::Internal(_) => ("internal".to_string(), None, None),
        };
        let message = match self {
            ServiceError::Violation(violation) => violation.message.clone(),
            ServiceError::Unavailable(_) => {
                "The database is unavailable; retry shortly.".to_string()
            }
            ServiceError::Internal(_) => {
                "Something went wrong on our side; it has been logged.".to_string()
            }
            other => other.to_string(),
        };
        ErrorBody {
            code,
            message,
            rule_url: rule.as_deref().and_then(umpire_domain::violation::rule_url),
            rule,
            details,
        }
    }
}

impl From<StoreError> for ServiceError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::GameNotFound(id) => ServiceError::NotFound {
                code: "game_not_found",
                message: format!("There is no game {id}."),
            },
            StoreError::Conflict { expected, actual } => {
                ServiceError::VersionConflict { expected, actual }
            }
            StoreError::IdempotencyKeyReused => ServiceError::unprocessable(
                "idempotency_key_reused",
                "This Idempotency-Key was already used with a different request.",
            ),
            StoreError::Unavailable(cause) => ServiceError::Unavailable(cause),
            other => {
                ServiceError::Internal(format!("{other}: {:?}", std::error::Error::source(&other)))
            }
        }
    }
}

impl From<GameError> for ServiceError {
    fn from(error: GameError) -> Self {
        match error {
            GameError::UnknownGame(game) => ServiceError::unprocessable(
                "unknown_game",
                format!("There is no game called `{game}`."),
            ),
            GameError::UnknownSeat { game, seat } => {
                ServiceError::invalid("unknown_seat", format!("`{seat}` is not a seat of {game}."))
            }
            GameError::Malformed {
                game,
                what,
                message,
            } => {
                let (code, subject) = match what {
                    Malformed::Action => ("invalid_action", "The action is not an action"),
                    Malformed::Options => ("invalid_options", "The options are not options"),
                    Malformed::Event => ("invalid_event", "An event is not an event"),
                    // A snapshot is the service's own (`snapshots.rs`).
                    Malformed::Snapshot => {
                        return ServiceError::Internal(format!(
                            "a kept snapshot of {game} is not its state: {message}"
                        ))
                    }
                };
                ServiceError::invalid(code, format!("{subject} of {game}: {message}."))
            }
            GameError::Violation(violation) => ServiceError::Violation(violation),
        }
    }
}

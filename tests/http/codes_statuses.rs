//! The statuses `service/src/codes.rs` states in prose (`"409: …"`) are the
//! ones `api/src/error.rs` answers. Held here for every error whose kind
//! decides its code, every conversion that chooses a code (a game's errors,
//! an archive that does not replay or holds a rejection the store would not
//! keep) and every game's violation codes; an
//! error whose code is chosen where it is made (`ServiceError::invalid(..)`
//! and its like) is held to its stated status by `support::assert_error`
//! wherever the suite meets it.

use actix_web::ResponseError;
use reqwest::StatusCode;
use serde_json::json;
use umpire_api::error::ApiError;
use umpire_archive::replay::{Cause, Divergence};
use umpire_archive::{InvalidRejection, RejectionFault, ScoreFault};
use umpire_domain::erased::Malformed;
use umpire_domain::GameError;
use umpire_service::ServiceError;

use crate::archive_support::simulated;
use crate::support::{assert_error, stated_status, TestApp};

#[test]
fn every_published_code_states_an_error_status() {
    for (code, meaning) in umpire_service::codes::published(&umpire_games::registry()) {
        let status = stated_status(&code);
        assert!(
            (400..600).contains(&status),
            "{code} states {status}, not an error status: {meaning}"
        );
    }
}

/// One error of every kind whose code the kind decides, with the errors
/// only HTTP has.
fn errors_whose_kind_decides_their_code() -> Vec<ApiError> {
    let service_errors = [
        ServiceError::VersionConflict {
            expected: 3,
            actual: 5,
        },
        ServiceError::Contended {
            message: "The game was too busy.".into(),
        },
        ServiceError::TooLarge {
            message: "The body is too large.".into(),
        },
        ServiceError::TooManyRefusals {
            retry_after_seconds: 2,
        },
        ServiceError::TooManyStreams { limit: 8 },
        ServiceError::Busy {
            message: "Busy.".into(),
        },
        ServiceError::Unavailable("connection refused".into()),
        ServiceError::Internal("a fault".into()),
    ];
    for error in &service_errors {
        assert!(!carries_its_code(error));
    }
    let mut errors: Vec<ApiError> = service_errors.into_iter().map(ApiError::from).collect();
    errors.push(ApiError::body_timeout());
    errors.push(ApiError::UnsupportedMediaType);
    errors
}

/// Whether the code of `error` was chosen where it was made rather than by
/// its kind. Written without a wildcard so that a new kind of error cannot
/// be added without deciding here whether the list above must name it.
fn carries_its_code(error: &ServiceError) -> bool {
    match error {
        ServiceError::Invalid { .. }
        | ServiceError::Unauthenticated { .. }
        | ServiceError::Forbidden { .. }
        | ServiceError::NotFound { .. }
        | ServiceError::Gone { .. }
        | ServiceError::AlreadyExists { .. }
        | ServiceError::Unprocessable { .. }
        | ServiceError::Throttled { .. }
        | ServiceError::Violation(_) => true,
        ServiceError::VersionConflict { .. }
        | ServiceError::Contended { .. }
        | ServiceError::TooLarge { .. }
        | ServiceError::TooManyRefusals { .. }
        | ServiceError::TooManyStreams { .. }
        | ServiceError::Busy { .. }
        | ServiceError::Unavailable(_)
        | ServiceError::Internal(_) => false,
    }
}

#[test]
fn every_error_whose_kind_decides_its_code_is_answered_the_status_that_code_states() {
    for error in errors_whose_kind_decides_their_code() {
        let code = error.body().code;
        assert_eq!(
            error.status_code().as_u16(),
            stated_status(&code),
            "api/src/error.rs answers {code} with another status than service/src/codes.rs states"
        );
    }
}

#[test]
fn every_game_violation_is_answered_the_status_its_code_states() {
    for game in umpire_games::registry().games() {
        for kind in game.violation_kinds() {
            let error = ApiError::from(ServiceError::Violation(kind.with("Refused.")));
            assert_eq!(
                error.status_code().as_u16(),
                stated_status(kind.code),
                "{}",
                kind.code
            );
        }
    }
}

#[test]
fn every_game_error_is_answered_the_status_its_code_states() {
    let malformed = |what| GameError::Malformed {
        game: "arboretum",
        what,
        message: "not this shape".into(),
    };
    let errors = [
        GameError::UnknownGame("chess".into()),
        GameError::UnknownSeat {
            game: "arboretum",
            seat: "green".into(),
        },
        malformed(Malformed::Action),
        malformed(Malformed::Event),
        malformed(Malformed::Options),
    ];
    for error in errors {
        let error = ApiError::from(ServiceError::from(error));
        let code = error.body().code;
        assert_eq!(
            error.status_code().as_u16(),
            stated_status(&code),
            "api/src/error.rs answers {code} with another status than service/src/codes.rs states"
        );
    }
}

/// Every way an archive can fail to replay. Written as a match without a
/// wildcard so that a new cause cannot be added without being listed here.
fn every_cause() -> Vec<Cause> {
    let causes = vec![
        Cause::UnknownGame,
        Cause::InvalidOptions,
        Cause::SequenceGap,
        Cause::ChainBroken,
        Cause::HashMismatch,
        Cause::EventTypeMismatch,
        Cause::SetupMismatch,
        Cause::UnexplainedEvent,
        Cause::MissingEvent,
        Cause::EventDiffers,
        Cause::ActionRefused,
        Cause::MalformedAction,
        Cause::UnstorableText,
        Cause::NilGameId,
        Cause::SeedOutOfRange,
        Cause::TimeRunsBackwards,
        Cause::TimeInFuture,
        Cause::UntimelyTimeout,
    ];
    for cause in &causes {
        match cause {
            Cause::UnknownGame
            | Cause::InvalidOptions
            | Cause::SequenceGap
            | Cause::ChainBroken
            | Cause::HashMismatch
            | Cause::EventTypeMismatch
            | Cause::SetupMismatch
            | Cause::UnexplainedEvent
            | Cause::MissingEvent
            | Cause::EventDiffers
            | Cause::ActionRefused
            | Cause::MalformedAction
            | Cause::UnstorableText
            | Cause::NilGameId
            | Cause::SeedOutOfRange
            | Cause::TimeRunsBackwards
            | Cause::TimeInFuture
            | Cause::UntimelyTimeout => {}
        }
    }
    causes
}

#[test]
fn every_refused_archive_is_answered_the_status_its_code_states() {
    for cause in every_cause() {
        let divergence = Divergence {
            seq: 3,
            version: 2,
            cause,
            message: "it does not replay".into(),
            expected: None,
            recorded: None,
            violation: None,
        };
        let error = ApiError::from(umpire_service::archives::refused(&divergence));
        let code = error.body().code;
        assert_eq!(
            error.status_code().as_u16(),
            stated_status(&code),
            "an archive refused for {cause:?} is answered {code} with another status than \
             service/src/codes.rs states"
        );
    }
}

/// Every way a bulk score's row can fail, listed like [`every_cause`]: a
/// chain that does not hold for each of the causes the chain check finds.
fn every_score_fault() -> Vec<ScoreFault> {
    let faults = vec![
        ScoreFault::NotAnArchive,
        ScoreFault::UnsupportedFormat,
        ScoreFault::UnknownGame,
        ScoreFault::InvalidOptions,
        ScoreFault::DoesNotFold,
        ScoreFault::Chain(Cause::SequenceGap),
        ScoreFault::Chain(Cause::ChainBroken),
        ScoreFault::Chain(Cause::HashMismatch),
    ];
    for fault in &faults {
        match fault {
            ScoreFault::NotAnArchive
            | ScoreFault::UnsupportedFormat
            | ScoreFault::UnknownGame
            | ScoreFault::InvalidOptions
            | ScoreFault::DoesNotFold
            | ScoreFault::Chain(_) => {}
        }
    }
    faults
}

#[test]
fn every_score_row_code_is_a_published_error_code() {
    for fault in every_score_fault() {
        // Panics for a code the document does not list.
        let status = stated_status(fault.code());
        assert!((400..500).contains(&status), "{fault:?}: {status}");
    }
    // The chain's codes are the ones an import of the same archive is
    // refused with.
    for cause in [Cause::SequenceGap, Cause::ChainBroken, Cause::HashMismatch] {
        assert_eq!(ScoreFault::Chain(cause).code(), cause.code());
    }
}

/// Every way an archive's rejection can be refused, listed like
/// [`every_cause`].
fn every_rejection_fault() -> Vec<RejectionFault> {
    let faults = vec![
        RejectionFault::UnknownActor,
        RejectionFault::VersionOutOfRange,
        RejectionFault::NulCharacter,
        RejectionFault::InvalidTime,
        RejectionFault::InvalidText,
        RejectionFault::RulesVersionMismatch,
        RejectionFault::InvalidRepeats,
        RejectionFault::Duplicate,
        RejectionFault::OverCap,
        RejectionFault::OverGameCap,
        RejectionFault::TimeInFuture,
    ];
    for fault in &faults {
        match fault {
            RejectionFault::UnknownActor
            | RejectionFault::VersionOutOfRange
            | RejectionFault::NulCharacter
            | RejectionFault::InvalidTime
            | RejectionFault::InvalidText
            | RejectionFault::RulesVersionMismatch
            | RejectionFault::InvalidRepeats
            | RejectionFault::Duplicate
            | RejectionFault::OverCap
            | RejectionFault::OverGameCap
            | RejectionFault::TimeInFuture => {}
        }
    }
    faults
}

#[test]
fn every_refused_rejection_is_answered_the_status_its_code_states() {
    for fault in every_rejection_fault() {
        let invalid = InvalidRejection {
            index: 4,
            fault,
            message: "it is not what the store keeps".into(),
        };
        let error = ApiError::from(umpire_service::archives::refused_rejection(&invalid));
        let code = error.body().code;
        assert_eq!(
            error.status_code().as_u16(),
            stated_status(&code),
            "a rejection refused for {fault:?} is answered {code} with another status than \
             service/src/codes.rs states"
        );
    }
}

/// The codes chosen where they are made that no other test holds to their
/// status over HTTP, each answered by the real server.
#[tokio::test]
async fn the_codes_no_other_test_answers_are_answered_the_status_they_state() {
    let app = TestApp::spawn().await;

    let archive = simulated("arboretum", 2);
    let (status, body) = app.import(&archive).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let again = app
        .post("/v1/games/import", None, archive.to_json_line())
        .await;
    assert_error(again, StatusCode::CONFLICT, "game_already_exists").await;

    let mut unsupported = simulated("arboretum", 3);
    unsupported.format_version = 999;
    let response = app
        .post("/v1/games/import", None, unsupported.to_json_line())
        .await;
    assert_error(
        response,
        StatusCode::UNPROCESSABLE_ENTITY,
        "unsupported_archive",
    )
    .await;

    let created = app.create("arboretum", json!({}), 42).await;
    let response = app
        .client
        .post(app.url(&format!("/v1/games/{}/actions", created.id)))
        .bearer_auth(created.token("red"))
        .header("Idempotency-Key", "k".repeat(201))
        .json(&json!({"action": {"type": "choose_start", "seat": "red"}}))
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_idempotency_key").await;
}

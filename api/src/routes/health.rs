//! Liveness and readiness.

use actix_web::{get, web, HttpResponse};

use crate::error::ErrorBody;
use crate::params::Health;
use crate::AppState;

/// The process is up.
#[utoipa::path(
    operation_id = "get_health",
    tag = "health",
    responses((status = 200, description = "The process is up", body = Health))
)]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health {
        status: "ok".into(),
    })
}

/// The database answers.
#[utoipa::path(
    operation_id = "get_readiness",
    tag = "health",
    responses(
        (status = 200, description = "Ready: the database answers", body = Health),
        (status = 503, description = "The database does not answer", body = ErrorBody),
    )
)]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, crate::error::ApiError> {
    state.service.ready().await?;
    Ok(HttpResponse::Ok().json(Health {
        status: "ready".into(),
    }))
}

//! `POST /v1/games/{id}/what-if`: a stored game re-run under other options.

use crate::json_body::JsonObject;
use crate::routes::error_answers::UmpireOnly;
use actix_web::{post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::Value;
use umpire_archive::WhatIfReport;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::require_umpire;
use crate::error::{ApiError, ErrorBody};
use crate::AppState;

/// The body of a what-if: options to change, as a JSON merge patch.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"options": {"broken_tree": "minus_twenty"}}))]
pub struct WhatIfRequest {
    /// A JSON merge patch over the game's options: the options to change.
    #[schema(schema_with = options_patch)]
    pub options: Value,
}

/// Any object: some of a game's options, with other values.
fn options_patch() -> utoipa::openapi::Object {
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::FreeForm(true)))
        .build()
}

/// Re-run the game's actions under other options; the first version where
/// the outcome differs and how the final scores change. Umpire only.
#[utoipa::path(
    operation_id = "run_game_what_if",
    tag = "archives",
    params(("id" = Uuid, Path, description = "Game id")),
    request_body = WhatIfRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The comparison", body = WhatIfReport),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 415, description = "The body was sent without `Content-Type: application/json`", body = ErrorBody),
        (status = 422, description = "The options are refused, or the stored game does not replay", body = ErrorBody),
        UmpireOnly,
    )
)]
#[post("/games/{id}/what-if")]
pub async fn run_game_what_if(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
    body: JsonObject<WhatIfRequest>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    require_umpire(&state.service, game_id, &request).await?;
    let report = state
        .service
        .what_if(game_id, body.into_inner().options)
        .await?;
    Ok(HttpResponse::Ok().json(report))
}

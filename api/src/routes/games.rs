//! The `/v1/games` resource.

use actix_web::http::header;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use umpire_service::listing::{GameList, GameListQuery};
use umpire_service::model::{
    ActionAccepted, ActionCheck, CreateGameRequest, CreatedGame, EventPage, GameSummary, GameTypes,
    LegalActions, ScoreResponse, StateResponse, SubmitActionRequest,
};
use umpire_service::reads::{DEFAULT_EVENT_PAGE, MAX_EVENT_PAGE};
use umpire_service::schemas::AnyAction;

use super::error_answers::{ActingInAGame, ReadingAGame};
use crate::auth::{credential, viewer, viewer_looking_as};
use crate::error::{ApiError, ErrorBody};
use crate::json_body::JsonObject;
use crate::params::{AtQuery, EventsQuery, MinVersionQuery};
use crate::AppState;

/// Create a game: returns its id, the umpire token and one token per seat.
#[utoipa::path(
    operation_id = "create_game",
    tag = "games",
    request_body = CreateGameRequest,
    security((), ("bearer" = [])),
    responses(
        (status = 201, description = "Created", body = CreatedGame),
        (status = 400, description = "Malformed JSON or options", body = ErrorBody),
        (status = 401, description = "The service requires the admin token to create games", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 415, description = "The body was sent without `Content-Type: application/json`", body = ErrorBody),
        (status = 422, description = "Unknown game or impossible options", body = ErrorBody),
        (status = 429, description = "Without an admin token: this address created its share of games for now (`too_many_games`, `Retry-After`)", body = ErrorBody),
        (status = 503, description = "Database unavailable", body = ErrorBody),
    )
)]
#[post("/games")]
pub async fn create_game(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: JsonObject<CreateGameRequest>,
) -> Result<HttpResponse, ApiError> {
    crate::auth::admit_creation(&state, &request)?;
    let created = state.service.create(body.into_inner()).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/v1/games/{}", created.id)))
        .json(created))
}

/// The games this service umpires: each one's seats, options and defaults.
#[utoipa::path(
    operation_id = "list_game_types",
    tag = "games",
    responses(
        (status = 200, description = "Every game that can be created", body = GameTypes),
        (status = 500, description = "A registered game's defaults do not hold: a fault of the service, logged", body = ErrorBody),
    )
)]
#[get("/game-types")]
pub async fn list_game_types(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(state.service.game_types()?))
}

/// A game's summary: game, status, version, who must act.
#[utoipa::path(
    operation_id = "get_game",
    tag = "games",
    params(("id" = Uuid, Path, description = "Game id"), MinVersionQuery),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "The game", body = GameSummary),
        (status = 400, description = "Bad min_version", body = ErrorBody),
        ReadingAGame,
    )
)]
#[get("/games/{id}")]
pub async fn get_game(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<MinVersionQuery>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    // The summary is public, but a token sent with it is checked as every
    // other read checks it: a client with a wrong token learns so here too.
    let viewer = viewer(&state.service, game_id, &request).await?;
    Ok(HttpResponse::Ok().json(
        state
            .service
            .summary(game_id, &viewer, query.read())
            .await?,
    ))
}

const IDEMPOTENCY_KEY: &str = "Idempotency-Key";

fn idempotency_key(request: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = request.headers().get(IDEMPOTENCY_KEY) else {
        return Ok(None);
    };
    let key = value
        .to_str()
        .ok()
        .filter(|key| !key.is_empty() && key.len() <= 200)
        .ok_or_else(|| {
            ApiError::bad_request(
                "invalid_idempotency_key",
                "Idempotency-Key must be 1 to 200 visible ASCII characters.",
            )
        })?;
    Ok(Some(key.to_string()))
}

/// Submit an action for the token's seat (or as the umpire).
#[utoipa::path(
    operation_id = "submit_action",
    tag = "games",
    params(
        ("id" = Uuid, Path, description = "Game id"),
        ("Idempotency-Key" = Option<String>, Header, description = "Retry-safe key: the same key and body return the original result"),
    ),
    request_body = SubmitActionRequest,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Accepted: the new version and the events the caller may see", body = ActionAccepted),
        (status = 400, description = "Malformed JSON or action", body = ErrorBody),
        ActingInAGame,
        (status = 409, description = "expected_version is stale", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 415, description = "The body was sent without `Content-Type: application/json`", body = ErrorBody),
        (status = 422, description = "The rules refuse the action (code, message, rule)", body = ErrorBody),
        (status = 429, description = "Too many refused actions from this token in this game (`too_many_refusals`), or the umpire's actions outside the rules faster than the game takes them (`too_many_umpire_actions`): retry after `Retry-After` seconds", body = ErrorBody),
    )
)]
#[post("/games/{id}/actions")]
pub async fn submit_action(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
    body: JsonObject<SubmitActionRequest>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    let credential = credential(&state.service, game_id, &request).await?;
    let key = idempotency_key(&request)?;
    // Boxed: the submission's future holds a decision's and a statement's
    // state, and actix moves the handler's future into a box of its own.
    let (accepted, replayed) = Box::pin(state.service.submit(
        game_id,
        &credential,
        body.into_inner(),
        key.as_deref(),
    ))
    .await?;
    let mut response = HttpResponse::Created();
    if replayed {
        response.insert_header(("Idempotent-Replayed", "true"));
    }
    // Written by the service as JSON already (`ActionAcceptedJson`).
    Ok(response.insert_header(json_content_type()).body(accepted.0))
}

/// `Content-Type: application/json` for a body the service wrote as JSON,
/// checked when compiled (`ContentType::json()` is checked a byte at a
/// time on every answer).
fn json_content_type() -> (header::HeaderName, header::HeaderValue) {
    static JSON: header::HeaderValue = header::HeaderValue::from_static("application/json");
    (header::CONTENT_TYPE, JSON.clone())
}

/// The body of a dry run: just the action.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"action": {"type": "plant", "card": "Q7", "cell": "D5"}}))]
pub struct CheckActionRequest {
    #[schema(value_type = AnyAction)]
    pub action: serde_json::Value,
}

/// Dry run: would this action be legal at version `at` (default now), and what would it produce? Nothing is stored.
#[utoipa::path(
    operation_id = "check_action",
    tag = "games",
    params(("id" = Uuid, Path, description = "Game id"), AtQuery),
    request_body = CheckActionRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The verdict", body = ActionCheck),
        (status = 400, description = "Malformed JSON, action or version", body = ErrorBody),
        ActingInAGame,
        (status = 415, description = "The body was sent without `Content-Type: application/json`", body = ErrorBody),
    )
)]
#[post("/games/{id}/actions/check")]
pub async fn check_action(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<AtQuery>,
    body: JsonObject<CheckActionRequest>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    let viewer = viewer_looking_as(
        &state.service,
        game_id,
        &request,
        query.looking_as.as_deref(),
    )
    .await?;
    let check = state
        .service
        .check(game_id, &viewer, &body.action, query.read())
        .await?;
    Ok(HttpResponse::Ok().json(check))
}

/// The state at version `at` (default now) as the caller may see it.
#[utoipa::path(
    operation_id = "get_game_state",
    tag = "games",
    params(("id" = Uuid, Path, description = "Game id"), AtQuery),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "The state", body = StateResponse),
        (status = 400, description = "Bad version", body = ErrorBody),
        ReadingAGame,
    )
)]
#[get("/games/{id}/state")]
pub async fn get_game_state(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<AtQuery>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    let viewer = viewer_looking_as(
        &state.service,
        game_id,
        &request,
        query.looking_as.as_deref(),
    )
    .await?;
    Ok(HttpResponse::Ok().json(state.service.state(game_id, &viewer, query.read()).await?))
}

/// The score sheet at version `at` (default now), final or provisional.
#[utoipa::path(
    operation_id = "get_game_score",
    tag = "games",
    params(("id" = Uuid, Path, description = "Game id"), AtQuery),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "The score sheet", body = ScoreResponse),
        (status = 400, description = "Bad version", body = ErrorBody),
        ReadingAGame,
    )
)]
#[get("/games/{id}/score")]
pub async fn get_game_score(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<AtQuery>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    let viewer = viewer_looking_as(
        &state.service,
        game_id,
        &request,
        query.looking_as.as_deref(),
    )
    .await?;
    Ok(HttpResponse::Ok().json(state.service.score(game_id, &viewer, query.read()).await?))
}

/// The event log, redacted for the caller, a page at a time.
#[utoipa::path(
    operation_id = "list_game_events",
    tag = "games",
    params(("id" = Uuid, Path, description = "Game id"), EventsQuery),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "A page of events", body = EventPage),
        (status = 400, description = "Bad paging parameters", body = ErrorBody),
        ReadingAGame,
    )
)]
#[get("/games/{id}/events")]
pub async fn list_game_events(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    let limit = query.limit.unwrap_or(DEFAULT_EVENT_PAGE);
    if limit == 0 || limit > MAX_EVENT_PAGE {
        return Err(ApiError::bad_request(
            "invalid_limit",
            format!("`limit` must be between 1 and {MAX_EVENT_PAGE}, not {limit}."),
        ));
    }
    let viewer = viewer_looking_as(
        &state.service,
        game_id,
        &request,
        query.looking_as.as_deref(),
    )
    .await?;
    // Written by the service as JSON already (`EventPageJson`).
    let page = state
        .service
        .events_json(game_id, &viewer, query.after.unwrap_or(0), limit)
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header(json_content_type())
        .body(page.0))
}

/// The caller's legal actions now (seat or umpire token).
#[utoipa::path(
    operation_id = "list_legal_actions",
    tag = "games",
    params(("id" = Uuid, Path, description = "Game id"), MinVersionQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Legal actions for the caller", body = LegalActions),
        (status = 400, description = "Bad min_version", body = ErrorBody),
        ActingInAGame,
    )
)]
#[get("/games/{id}/legal-actions")]
pub async fn list_legal_actions(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<MinVersionQuery>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    let viewer = viewer(&state.service, game_id, &request).await?;
    let actions = state
        .service
        .legal_actions(game_id, &viewer, query.read())
        .await?;
    Ok(HttpResponse::Ok().json(actions))
}

/// The games stored, newest first, a page at a time: each one's game, seats,
/// version and whether it is finished (what any spectator may read of it).
/// Needs the admin token when the service has one; anyone may list them
/// when it runs open.
#[utoipa::path(
    operation_id = "list_games",
    tag = "games",
    params(GameListQuery),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "A page of games and where the next starts", body = GameList),
        (status = 400, description = "An unknown game or status, a `limit` outside 1 to 200, or an `after` this list did not give", body = ErrorBody),
        (status = 401, description = "The service requires the admin token to list games", body = ErrorBody),
        (status = 503, description = "Database unavailable", body = ErrorBody),
    )
)]
#[get("/games")]
pub async fn list_games(
    state: web::Data<AppState>,
    request: HttpRequest,
    query: web::Query<GameListQuery>,
) -> Result<HttpResponse, ApiError> {
    crate::auth::require_admin_to("Listing games", state.admin_token.as_deref(), &request)?;
    Ok(HttpResponse::Ok().json(state.service.list_games(&query).await?))
}

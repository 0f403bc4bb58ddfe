//! A seat on its player's devices (`umpire_service::seat_devices`): the
//! seat's one-time link to another device, and leaving this device (the
//! seat's cookie ended and cleared, `seat_cookie.rs`).

use actix_web::http::header;
use actix_web::{delete, post, web, HttpRequest, HttpResponse};
use uuid::Uuid;

use umpire_service::invitations::Invitation;

use super::error_answers::ActingInAGame;
use crate::auth::{clearing_an_ended_cookie, presented};
use crate::error::{ApiError, ErrorBody};
use crate::seat_cookie;
use crate::AppState;

/// Make a link to another device: a one-time invitation of the calling
/// seat, redeemable for 10 minutes (`/join#<code>`), which gives that seat
/// to whoever opens it. The device that made it keeps the seat. With the
/// seat's token, or from the game's page with the seat's cookie.
#[utoipa::path(
    operation_id = "create_device_link",
    tag = "games",
    params(("id" = Uuid, Path, description = "Game id")),
    security(("bearer" = []), ("seat_cookie" = [])),
    responses(
        (status = 201, description = "The link, shown once: it works once, within 10 minutes", body = Invitation),
        (status = 429, description = "This seat made links faster than a seat may (`too_many_device_links`, `Retry-After`)", body = ErrorBody),
        ActingInAGame,
    )
)]
#[post("/games/{id}/device-links")]
pub async fn create_device_link(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    let presented = match presented(&request) {
        Ok(presented) => presented,
        Err(refused) => {
            state.service.record(game_id).await?;
            return Err(refused);
        }
    };
    let link = state
        .service
        .make_device_link(game_id, &presented)
        .await
        .map_err(|error| clearing_an_ended_cookie(error, game_id, &request))?;
    Ok(HttpResponse::Created().json(link))
}

/// Leave this device: the seat's cookie is ended (refused from now on,
/// wherever a copy of it is) and cleared from the browser. Only the cookie
/// is concerned: a bearer token sent with it is not looked at, and the
/// seat's tokens and other devices keep the seat. Answered 204 whether or
/// not the browser held a cookie.
#[utoipa::path(
    operation_id = "end_page_session",
    tag = "games",
    params(("id" = Uuid, Path, description = "Game id")),
    security((), ("seat_cookie" = [])),
    responses(
        (status = 204, description = "This browser holds the seat no more: `Set-Cookie` clears `umpire_seat`"),
        (status = 400, description = "More than one seat cookie (`ambiguous_seat_cookie`)", body = ErrorBody),
        (status = 403, description = "The seat's cookie from another origin (`cross_site_request`): nothing is ended", body = ErrorBody),
        (status = 404, description = "No such game", body = ErrorBody),
        (status = 503, description = "Database unavailable", body = ErrorBody),
    )
)]
#[delete("/games/{id}/page-session")]
pub async fn end_page_session(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    state.service.record(game_id).await?;
    if let Some(secret) = seat_cookie::value(&request)? {
        // Another site must not be able to make a player leave.
        if !seat_cookie::from_own_origin(&request, false) {
            return Err(seat_cookie::cross_site());
        }
        state.service.end_page_session(game_id, &secret).await?;
    }
    Ok(HttpResponse::NoContent()
        .insert_header((
            header::SET_COOKIE,
            seat_cookie::cleared(game_id, seat_cookie::from_https_page(&request)),
        ))
        .finish())
}

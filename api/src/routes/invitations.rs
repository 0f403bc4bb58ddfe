//! Seats by invitation: redeeming an invitation's code for a seat's token,
//! and the umpire's reissue of a seat's token (`umpire_service::invitations`).

use actix_web::http::header;
use actix_web::{post, web, HttpRequest, HttpResponse};
use uuid::Uuid;

use umpire_service::invitations::{
    KeptAs, RedeemInvitationRequest, RedeemedInvitation, ReissuedSeat,
};

use super::error_answers::ActingInAGame;
use crate::auth::{bearer_token, viewer};
use crate::error::{ApiError, ErrorBody};
use crate::json_body::JsonObject;
use crate::seat_cookie;
use crate::AppState;

/// Redeem an invitation: its one-time code, once, for a new token of its
/// seat and the game's id; or, asked by the game's own page
/// (`keep: cookie`), for a cookie that keeps the seat in this browser, with
/// no token in the answer.
#[utoipa::path(
    operation_id = "redeem_invitation",
    tag = "games",
    request_body = RedeemInvitationRequest,
    responses(
        (status = 200, description = "The seat's new token, shown once; with `keep: cookie`, no token and `Set-Cookie: umpire_seat=…; Path=/v1/games/{id}; HttpOnly; SameSite=Strict` (and `Secure` from an https page)", body = RedeemedInvitation),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 403, description = "`keep: cookie` asked by a request that does not come from this service's own page (`cross_site_request`)", body = ErrorBody),
        (status = 404, description = "No invitation has this code (`invitation_unknown`)", body = ErrorBody),
        (status = 410, description = "The invitation was used (`invitation_used`), has expired (`invitation_expired`) or was revoked by a reissue (`invitation_revoked`)", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 415, description = "The body was sent without `Content-Type: application/json`", body = ErrorBody),
        (status = 429, description = "This address failed too many redemptions for now (`too_many_failed_redemptions`, `Retry-After`)", body = ErrorBody),
        (status = 503, description = "Database unavailable", body = ErrorBody),
    )
)]
#[post("/invitations/redeem")]
pub async fn redeem_invitation(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: JsonObject<RedeemInvitationRequest>,
) -> Result<HttpResponse, ApiError> {
    // A cookie is set only for the service's own page: another site must
    // not seat a visitor's browser with an invitation of its choosing.
    if body.keep == KeptAs::Cookie && !seat_cookie::from_own_origin(&request, false) {
        return Err(seat_cookie::cross_site());
    }
    let client = state.trusted_proxies.client_of(&request);
    let redeemed = state
        .service
        .redeem_invitation(&body.code, body.keep, client)
        .await?;
    let mut answer = HttpResponse::Ok();
    if let Some(session) = &redeemed.page_session {
        answer.insert_header((
            header::SET_COOKIE,
            seat_cookie::kept(session, seat_cookie::from_https_page(&request)),
        ));
    }
    Ok(answer.json(redeemed.answer))
}

/// Reissue a seat's token: every earlier token of the seat is revoked at
/// once, the game's log records `seat_token_reissued` by the umpire
/// (without any token or code), and the answer is the seat's new
/// invitation. With the umpire token, or the admin token when the service
/// has one.
#[utoipa::path(
    operation_id = "reissue_seat_token",
    tag = "games",
    params(
        ("id" = Uuid, Path, description = "Game id"),
        ("seat" = String, Path, description = "The seat whose token is reissued"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Reissued: the seat's new invitation, shown once", body = ReissuedSeat),
        (status = 409, description = "The game was too busy (`contended`)", body = ErrorBody),
        (status = 422, description = "Not the umpire's token (`seats.umpire_only`), no such seat (`seats.unknown_seat`) or the game is over (`seats.game_over`)", body = ErrorBody),
        (status = 429, description = "The game has taken as many of the umpire's actions outside the rules as it may for now: `too_many_umpire_actions`, retry after `Retry-After` seconds", body = ErrorBody),
        ActingInAGame,
    )
)]
#[post("/games/{id}/seats/{seat}/reissue")]
pub async fn reissue_seat_token(
    state: web::Data<AppState>,
    request: HttpRequest,
    path: web::Path<(Uuid, String)>,
) -> Result<HttpResponse, ApiError> {
    let (game_id, seat) = path.into_inner();
    let by_admin = match (state.admin_token.as_deref(), bearer_token(&request)?) {
        (Some(admin), Some(presented)) => {
            umpire_service::access::require_admin(Some(admin), Some(&presented)).is_ok()
        }
        _ => false,
    };
    let caller = if by_admin {
        None
    } else {
        Some(viewer(&state.service, game_id, &request).await?)
    };
    let reissued = state
        .service
        .reissue_seat(game_id, &seat, caller.as_ref())
        .await?;
    Ok(HttpResponse::Ok().json(reissued))
}

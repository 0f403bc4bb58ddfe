//! `GET /v1/games/{id}/export`: a stored game as an archive, its log written
//! whole and its rejections streamed page by page.

use crate::routes::error_answers::UmpireOnly;
use actix_web::{get, web, HttpRequest, HttpResponse};
use umpire_archive::Archive;
use uuid::Uuid;

use super::stored::{read_for_umpire, StoredForUmpire};
use super::streamed::{streamed_json, StreamStop};
use crate::error::ApiError;
use crate::AppState;

/// The whole game as an archive, with its hash chain. Umpire only.
#[utoipa::path(
    operation_id = "export_game",
    tag = "archives",
    params(("id" = Uuid, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The archive", body = Archive),
        UmpireOnly,
    )
)]
#[get("/games/{id}/export")]
pub async fn export_game_archive(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    let StoredForUmpire {
        memory,
        log,
        made: (),
        rejections,
    } = read_for_umpire(&state, &request, game_id, |service| {
        Box::pin(async move { Ok((service.export_log(game_id).await?, ())) })
    })
    .await?;
    let (mut body, response) = streamed_json();
    actix_web::rt::task::spawn_blocking(move || {
        let _memory = memory;
        // The log is written without its (empty) rejections, which follow
        // it, page by page, as the last field.
        let written = body.write_fields_except(&log, "rejections").and_then(|()| {
            body.write(b",\"rejections\":[")?;
            let mut first = true;
            for rejection in rejections {
                body.write_element(&mut first, &rejection.map_err(StreamStop::Store)?)?;
            }
            body.write(b"]}")?;
            body.finish()
        });
        if let Err(stop) = written {
            body.cut(game_id, "export", &stop);
        }
    });
    Ok(response)
}

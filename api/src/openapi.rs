//! The OpenAPI document: paths collected from the handlers by
//! utoipa-actix-web, game shapes from the registry (see [`crate::schemas`]).

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::{scope, service_config::ServiceConfig, AppExt};

use crate::routes::{archives, games, health};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Umpire",
        description = "Event-sourced replay and scoring for board games: submit actions, project any \
                       historical state as any seat sees it, and compute scores. Errors are always \
                       `{code, message, rule?, details?}`.",
        license(name = "MIT", identifier = "MIT")
    ),
    tags(
        (name = "games", description = "Games, actions, state, events and scores"),
        (name = "health", description = "Liveness and readiness"),
    ),
    modifiers(&BearerScheme)
)]
struct BaseDocument;

struct BearerScheme;

impl Modify for BearerScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("A seat token or the umpire token from create_game."))
                    .build(),
            ),
        );
    }
}

/// The versioned API's routes, shared by the server and [`document`].
pub fn v1_routes(config: &mut ServiceConfig) {
    config
        .service(games::list_game_types)
        .service(games::create_game)
        .service(games::get_game)
        .service(games::submit_action)
        .service(games::check_action)
        .service(games::get_game_state)
        .service(games::get_game_score)
        .service(games::list_game_events)
        .service(games::list_legal_actions)
        .service(archives::get_game_audit)
        .service(archives::export_game_archive)
        .service(archives::import_game)
        .service(archives::score_archives)
        .service(archives::run_game_what_if);
}

pub fn base() -> utoipa::openapi::OpenApi {
    let mut document = BaseDocument::openapi();
    document.info.version = env!("CARGO_PKG_VERSION").to_string();
    document
}

/// The whole document, as served at `/openapi.json`.
pub fn document() -> utoipa::openapi::OpenApi {
    let (_, document) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(base())
        .service(scope::scope("/v1").configure(v1_routes))
        .service(health::healthz)
        .service(health::readyz)
        .split_for_parts();
    document
}

/// The document as pretty JSON with a trailing newline, as committed in
/// `openapi/openapi.json`.
pub fn document_json() -> String {
    let mut json = document()
        .to_pretty_json()
        .expect("the OpenAPI document serialises");
    json.push('\n');
    json
}

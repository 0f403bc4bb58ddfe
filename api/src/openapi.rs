//! The OpenAPI document: paths collected from the handlers by
//! utoipa-actix-web, game shapes from the registry (see [`umpire_service::schemas`]).

use serde_json::{json, Value};
use utoipa::openapi::content::Content;
use utoipa::openapi::example::ExampleBuilder;
use utoipa::openapi::extensions::ExtensionsBuilder;
use utoipa::openapi::path::Operation;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{OpenApi as Document, RefOr};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::{scope, service_config::ServiceConfig, AppExt};

use crate::routes::{archives, games, health, invitations, seat_devices, stream};

pub mod by_game;
pub mod flattened;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Umpire",
        description = "Event-sourced replay and scoring for board games: submit actions, project any \
                       historical state as any seat sees it, and compute scores. Errors are always \
                       `{code, message, rule?, rule_url?, details?}` (`rule_url`: the cited \
                       section's page on this service, `/rules/<game>#s<n>`).\n\n\
                       **What a client can rely on when reading.** A game's versions never \
                       change once written: an answer at `?at=N` is the same from every \
                       instance and database it is read from (the service may answer it from \
                       a PostgreSQL standby), and may be cached forever. A read without `at` \
                       is at the newest version. After your own write, pass the `version` it \
                       answered as `?min_version=N` to any read: the answer is at version N \
                       or newer, never older, wherever it is served (read-your-writes, across \
                       instances, with nothing to keep). An events page is never cut short: \
                       when `next_after` is null, `version` is the newest; otherwise ask for \
                       the next page. A live stream delivers every event once, in order.",
        license(name = "MIT", identifier = "MIT")
    ),
    tags(
        (name = "games", description = "Games, actions, state, events and scores"),
        (name = "archives", description = "Whole games as archives: export, import, audit, what-if and bulk scoring"),
        (name = "health", description = "Liveness and readiness"),
    ),
    components(schemas(
        umpire_service::model::StreamEnd,
        umpire_service::listing::GameStatusFilter
    )),
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
        components.add_security_scheme(
            "seat_cookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                crate::seat_cookie::NAME,
                "A seat kept by a browser: set by redeem_invitation with `keep: cookie` \
                 (HttpOnly, SameSite=Strict, Path=/v1/games/{id}), for the game's own page \
                 only. A request that carries it must come from that page's origin \
                 (`Sec-Fetch-Site: same-origin`, or an `Origin` naming the `Host`), else 403 \
                 `cross_site_request`; a bearer token sent with it wins. Clients use the \
                 bearer token.",
            ))),
        );
    }
}

/// The versioned API's routes as the server registers them. actix tries a
/// scope's routes first to last, matching each dynamic one against its
/// regular expression, so the one requested most, an action's submission,
/// comes first: it is then matched at once, and no other route overlaps it.
pub fn v1_routes(config: &mut ServiceConfig) {
    routes_in(RouteOrder::Serving, config)
}

/// Where an action's submission comes among the versioned routes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RouteOrder {
    /// First, for the router (see [`v1_routes`]).
    Serving,
    /// Among the other routes of a game, as the document lists them.
    Documented,
}

fn routes_in(order: RouteOrder, config: &mut ServiceConfig) {
    if order == RouteOrder::Serving {
        config.service(games::submit_action);
    }
    config
        .service(games::list_game_types)
        .service(games::create_game)
        .service(games::list_games)
        .service(games::get_game);
    if order == RouteOrder::Documented {
        config.service(games::submit_action);
    }
    config
        .service(games::check_action)
        .service(games::get_game_state)
        .service(games::get_game_score)
        .service(games::list_game_events)
        .service(stream::stream_game_events)
        .service(games::list_legal_actions)
        .service(archives::get_game_audit)
        .service(archives::export_game_archive)
        .service(archives::import_game)
        .service(archives::score_archives)
        .service(archives::run_game_what_if)
        .service(invitations::redeem_invitation)
        .service(invitations::reissue_seat_token)
        .service(seat_devices::create_device_link)
        .service(seat_devices::end_page_session);
}

pub fn base() -> utoipa::openapi::OpenApi {
    let mut document = BaseDocument::openapi();
    document.info.version = env!("CARGO_PKG_VERSION").to_string();
    document
}

/// The whole document, as served at `/openapi.json`: JSON, since its last
/// step (see [`by_game`]) writes what utoipa's types cannot read back.
pub fn document() -> Value {
    let (_, document) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(base())
        .service(scope::scope("/v1").configure(|config| routes_in(RouteOrder::Documented, config)))
        .service(health::healthz)
        .service(health::readyz)
        .split_for_parts();
    let mut document = publish_error_codes(document);
    flattened::merge_flattened(&mut document);
    let document = add_examples_for_every_game(document);
    let mut json = serde_json::to_value(&document).expect("the OpenAPI document serialises");
    by_game::discriminate(&mut json);
    title_every_component(&mut json);
    json
}

/// Gives every component schema without a title its name as one, so that
/// documentation (Swagger UI) and generators name the alternatives of a
/// union (`ArboretumView | TreebloxView`, not `any | any`).
fn title_every_component(document: &mut Value) {
    if let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for (name, schema) in schemas.iter_mut() {
            if let Some(schema) = schema.as_object_mut() {
                schema
                    .entry("title")
                    .or_insert_with(|| Value::String(name.clone()));
            }
        }
    }
}

/// The `POST` operation of a path.
fn post<'a>(document: &'a mut Document, path: &str) -> Option<&'a mut Operation> {
    document.paths.paths.get_mut(path)?.post.as_mut()
}

/// The JSON body of an operation, when it has one.
fn json_body(operation: &mut Operation) -> Option<&mut Content> {
    let RefOr::T(body) = operation.request_body.as_mut()? else {
        return None;
    };
    match body.content.get_mut("application/json")? {
        RefOr::T(content) => Some(content),
        RefOr::Ref(_) => None,
    }
}

/// Examples of every game where an operation's body depends on the game:
/// creating one with its default options, and submitting one of its
/// actions; and a small accepted action for the 201 answer.
fn add_examples_for_every_game(mut document: Document) -> Document {
    let registry = umpire_games::registry();
    let mut create = Vec::new();
    let mut submit = Vec::new();
    for game in registry.games() {
        let Ok(options) = game.validate_options(&Value::Null) else {
            continue;
        };
        create.push((
            game.id().to_string(),
            format!("{} with its default options", game.id()),
            json!({"game": game.id(), "options": options}),
        ));
        for (name, action) in game.schemas().action_examples.into_iter().take(2) {
            submit.push((
                format!("{}_{name}", game.id()),
                format!("{}: {name}", game.id()),
                json!({"action": action}),
            ));
        }
    }
    let accepted = json!({
        "version": 13,
        "events": [{
            "seq": 13,
            "type": "card_planted",
            "actor": "seat:red",
            "recorded_at": "2026-11-23T16:43:22.120000Z",
            "rules_version": 1,
            "payload": {"type": "card_planted", "seat": "red", "card": "V5", "cell": "C3"},
            "action": {"type": "plant", "card": "V5", "cell": "C3"}
        }],
        "status": {"phase": "playing", "finished": false, "to_act": ["blue"]}
    });
    let examples = |list: Vec<(String, String, Value)>| {
        list.into_iter()
            .map(|(name, summary, value)| {
                let example = ExampleBuilder::new().summary(summary).value(Some(value));
                (name, RefOr::T(example.build()))
            })
            .collect()
    };
    if let Some(content) = post(&mut document, "/v1/games").and_then(json_body) {
        content.examples = examples(create);
    }
    if let Some(operation) = post(&mut document, "/v1/games/{id}/actions") {
        if let Some(content) = json_body(operation) {
            content.examples = examples(submit);
        }
        if let Some(RefOr::T(response)) = operation.responses.responses.get_mut("201") {
            if let Some(RefOr::T(content)) = response.content.get_mut("application/json") {
                content.example = Some(accepted);
            }
        }
    }
    document
}

/// The document as pretty JSON with a trailing newline, as committed in
/// `openapi/openapi.json`.
pub fn document_json() -> String {
    let mut json =
        serde_json::to_string_pretty(&document()).expect("the OpenAPI document serialises");
    json.push('\n');
    json
}

/// The operations of a path, for editing.
fn operations(item: &mut utoipa::openapi::path::PathItem) -> impl Iterator<Item = &mut Operation> {
    [
        &mut item.get,
        &mut item.put,
        &mut item.post,
        &mut item.delete,
        &mut item.patch,
    ]
    .into_iter()
    .filter_map(Option::as_mut)
}

/// Publishes what the derived schemas cannot say: every error code
/// `ErrorBody.code` may carry, as an enum with each one's meaning
/// (`x-enum-descriptions`, read by several generators, and a list in the
/// description), and one example per error status instead of the same
/// violation on every one.
fn publish_error_codes(mut document: Document) -> Document {
    let codes = umpire_service::codes::published(&umpire_games::registry());
    let code = document
        .components
        .as_mut()
        .and_then(|components| components.schemas.get_mut("ErrorBody"))
        .and_then(|body| match body {
            RefOr::T(Schema::Object(body)) => body.properties.get_mut("code"),
            _ => None,
        });
    if let Some(RefOr::T(Schema::Object(code))) = code {
        let list: String = codes
            .iter()
            .map(|(code, meaning)| format!("\n- `{code}`: {meaning}"))
            .collect();
        code.enum_values = Some(codes.iter().map(|(code, _)| json!(code)).collect());
        code.description = Some(format!(
            "Stable and machine-readable: one of the codes below (the platform's, then each \
             game's violation codes with the rule section that decides them).{list}"
        ));
        code.extensions = Some(
            ExtensionsBuilder::new()
                .add(
                    "x-enum-descriptions",
                    codes
                        .iter()
                        .map(|(_, meaning)| json!(meaning))
                        .collect::<Vec<_>>(),
                )
                .build(),
        );
    }
    for item in document.paths.paths.values_mut() {
        for operation in operations(item) {
            for (status, response) in operation.responses.responses.iter_mut() {
                let RefOr::T(response) = response else {
                    continue;
                };
                let Some(example) = error_example(status, &response.description) else {
                    continue;
                };
                if let Some(RefOr::T(content)) = response.content.get_mut("application/json") {
                    content.example = Some(example);
                }
            }
        }
    }
    document
}

/// A typical error body for a status, or the body of the code a
/// response's description names when there are several for that status.
fn error_example(status: &str, description: &str) -> Option<Value> {
    let names = |code: &str| description.contains(&format!("`{code}`"));
    Some(match status {
        "429" if names("too_many_games") => {
            json!({"code": "too_many_games", "message": "This address has created as many games as it may for now (a service without an admin token allows 10 a minute). Retry in 6 s.", "details": {"retry_after_seconds": 6}})
        }
        "429" if names("too_many_streams") => {
            json!({"code": "too_many_streams", "message": "This client already holds its limit of 64 live streams on this instance; close one, or read /events meanwhile.", "details": {"limit": 64}})
        }
        "429" if names("too_many_umpire_actions") && !names("too_many_refusals") => {
            json!({"code": "too_many_umpire_actions", "message": "This game takes the umpire's actions outside the rules (pause, resume, extra time, reissue) at most 30 at once, then one every 2 s. Retry in 2 s.", "details": {"retry_after_seconds": 2}})
        }
        "429" if names("too_many_failed_redemptions") => {
            json!({"code": "too_many_failed_redemptions", "message": "This address redeemed too many unknown, used or expired invitations; check the link. Retry in 2 s.", "details": {"retry_after_seconds": 2}})
        }
        "429" if names("too_many_device_links") => {
            json!({"code": "too_many_device_links", "message": "This seat made links to another device faster than a seat may. Retry in 41 s.", "details": {"retry_after_seconds": 41}})
        }
        "400" if names("ambiguous_seat_cookie") => {
            json!({"code": "ambiguous_seat_cookie", "message": "This request carries more than one seat cookie for this game; only the service sets it, once per game. Clear this site's cookies and take the seat again."})
        }
        "403" if names("cross_site_request") && !description.contains("umpire") => {
            json!({"code": "cross_site_request", "message": "This request carries the seat's cookie but does not come from the game's own page (Sec-Fetch-Site, Origin): only that page may use it. A client sends the seat's token as Authorization: Bearer <token> instead."})
        }
        "400" => {
            json!({"code": "malformed_json", "message": "The body is not valid for this request: missing field `action` at line 1 column 2."})
        }
        "401" => {
            json!({"code": "invalid_token", "message": "This token is not valid for this game."})
        }
        "403" => {
            json!({"code": "umpire_only", "message": "Only the umpire may do this: it shows every seat's secrets."})
        }
        "404" => {
            json!({"code": "game_not_found", "message": "There is no game 6f1c2a54-8d0e-4a43-9b0a-3c1f5e2d7a90."})
        }
        "408" => {
            json!({"code": "body_timeout", "message": "The request body did not arrive in time: no more than 5 s may pass between its parts, and 60 s in all."})
        }
        "409" => {
            json!({"code": "version_conflict", "message": "The game is at version 14, not the expected 12.", "details": {"expected": 12, "actual": 14}})
        }
        "413" => {
            json!({"code": "payload_too_large", "message": "The body is 70000 bytes; the limit is 65536."})
        }
        "415" => {
            json!({"code": "unsupported_content_type", "message": "The body must be JSON, sent with Content-Type: application/json."})
        }
        "422" => {
            json!({"code": "arboretum.cell_not_adjacent", "message": "D5 is not orthogonally adjacent to any planted card.", "rule": "arboretum §4", "rule_url": "/rules/arboretum#s4"})
        }
        "429" => {
            json!({"code": "too_many_refusals", "message": "Too many refused actions from this token in this game; retry in 1 s.", "details": {"retry_after_seconds": 1}})
        }
        "500" => {
            json!({"code": "internal", "message": "Something went wrong on our side; it has been logged."})
        }
        "503" => {
            json!({"code": "unavailable", "message": "The database is unavailable; retry shortly."})
        }
        _ => return None,
    })
}

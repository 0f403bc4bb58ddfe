//! The OpenAPI document: generated from the code, committed, and locked.

use std::path::PathBuf;

use serde_json::Value;

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../openapi/openapi.json")
}

/// `UPDATE_OPENAPI=1 cargo test -p umpire-api --test http documents` rewrites it.
#[test]
fn the_committed_openapi_document_matches_the_code() {
    let generated = umpire_api::openapi::document_json();
    if std::env::var("UPDATE_OPENAPI").is_ok_and(|v| v == "1") {
        std::fs::write(committed_path(), &generated).expect("write openapi.json");
    }
    let committed = std::fs::read_to_string(committed_path()).expect("openapi/openapi.json exists");
    assert!(
        committed == generated,
        "openapi/openapi.json is stale: run `UPDATE_OPENAPI=1 cargo test -p umpire-api --test http documents` and review the diff"
    );
}

#[test]
fn every_operation_declares_the_error_envelope_and_a_good_operation_id() {
    let document: Value = serde_json::from_str(&umpire_api::openapi::document_json()).unwrap();
    assert_eq!(document["openapi"], "3.1.0");
    let paths = document["paths"].as_object().unwrap();
    assert!(paths.len() >= 8);
    for (path, operations) in paths {
        for (method, operation) in operations.as_object().unwrap() {
            let id = operation["operationId"].as_str().unwrap();
            assert!(
                id.split('_').count() >= 2
                    && id.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{method} {path}: operationId {id} is not <verb>_<resource>"
            );
            let responses = operation["responses"].as_object().unwrap();
            let declares_envelope = responses.iter().any(|(status, response)| {
                status.starts_with('4')
                    || status.starts_with('5') && {
                        response
                            .to_string()
                            .contains("#/components/schemas/ErrorBody")
                    }
            });
            if path.starts_with("/v1") {
                assert!(
                    declares_envelope,
                    "{method} {path} declares no error envelope"
                );
                for (status, response) in responses {
                    if status.starts_with('4') || status.starts_with('5') {
                        assert!(
                            response
                                .to_string()
                                .contains("#/components/schemas/ErrorBody"),
                            "{method} {path} {status} is not the error envelope"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn every_game_contributes_its_action_event_state_and_score_shapes() {
    let document: Value = serde_json::from_str(&umpire_api::openapi::document_json()).unwrap();
    let schemas = document["components"]["schemas"].as_object().unwrap();
    for game in umpire_games::registry().games() {
        let shapes = game.schemas();
        for name in [
            &shapes.action,
            &shapes.event,
            &shapes.view,
            &shapes.score,
            &shapes.options,
        ] {
            assert!(
                schemas.contains_key(name.as_str()),
                "{} is missing {name}",
                game.id()
            );
        }
    }
    // Each game's actions, and those every game has: the clock's, the
    // reissue of a seat and the umpire's ruling (recorded in the log, so in
    // events and audits).
    let any_action = &schemas["AnyAction"]["anyOf"];
    assert_eq!(
        any_action.as_array().unwrap().len(),
        umpire_games::registry().ids().count() + 3
    );
    for shared in ["ClockAction", "SeatTokenAction", "RulingAction"] {
        assert!(any_action
            .as_array()
            .unwrap()
            .contains(&serde_json::json!({"$ref": format!("#/components/schemas/{shared}")})));
    }
    // And each game's own event pages say so.
    let payload = &schemas["ArboretumEventEnvelope"]["properties"]["payload"]["anyOf"];
    for shared in ["ClockEvent", "SeatTokenEvent", "RulingEvent", "HiddenEvent"] {
        assert!(
            payload
                .as_array()
                .unwrap()
                .contains(&serde_json::json!({"$ref": format!("#/components/schemas/{shared}")})),
            "{shared} in {payload}"
        );
    }
}

#[test]
fn the_spec_has_examples_of_every_games_actions_and_events() {
    let document: Value = serde_json::from_str(&umpire_api::openapi::document_json()).unwrap();
    let schemas = &document["components"]["schemas"];
    let action_examples = schemas["AnyAction"]["examples"].as_array().unwrap();
    let event_examples = schemas["AnyEvent"]["examples"].as_array().unwrap();
    for game in umpire_games::registry().games() {
        let shapes = game.schemas();
        for (name, example) in &shapes.action_examples {
            assert!(
                action_examples.contains(example),
                "{} action example {name}",
                game.id()
            );
        }
        assert!(
            !shapes.action_examples.is_empty(),
            "{} has action examples",
            game.id()
        );
    }
    // Every game contributes events, several types each.
    assert!(
        event_examples.len() >= 4 * 3,
        "{} event examples",
        event_examples.len()
    );
    let types: std::collections::BTreeSet<&str> = event_examples
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    for expected in ["card_planted", "cube_placed", "card_picked", "piece_placed"] {
        assert!(
            types.contains(expected),
            "no {expected} example in {types:?}"
        );
    }
}

/// Generated clients name a class after a schema's title; untitled `oneOf`
/// variants become `ArboretumActionType3`. Every variant of a game's action
/// and event enums carries a title made of the enum and its tag.
#[test]
fn every_action_and_event_variant_has_a_title_naming_its_tag() {
    let document: Value = serde_json::from_str(&umpire_api::openapi::document_json()).unwrap();
    let schemas = document["components"]["schemas"].as_object().unwrap();
    let mut checked = 0;
    for game in ["Arboretum", "Treeblox", "DraftCider", "FlowerFields"] {
        for kind in ["Action", "Event"] {
            let name = format!("{game}{kind}");
            let variants = schemas[&name]["oneOf"]
                .as_array()
                .unwrap_or_else(|| panic!("{name}"));
            for variant in variants {
                let tag = variant["properties"]["type"]["enum"][0].as_str().unwrap();
                let title = variant["title"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{name}/{tag}"));
                let expected: String = tag
                    .split('_')
                    .map(|word| word[..1].to_uppercase() + &word[1..])
                    .collect();
                assert_eq!(title, format!("{name}{expected}"));
                checked += 1;
            }
        }
    }
    assert!(checked > 40, "{checked} variants");
}

#[tokio::test]
async fn the_docs_page_is_found_with_or_without_its_trailing_slash() {
    let app = crate::support::TestApp::spawn().await;
    let response = app.get("/docs", None).await;
    assert_eq!(response.status(), reqwest::StatusCode::OK);
    assert!(
        response.url().path().ends_with("/docs/"),
        "{}",
        response.url()
    );
    let page = response.text().await.unwrap();
    assert!(page.contains("swagger"), "the Swagger UI page");
    // Laid out at the phone's width, not at 980 px and shrunk.
    assert!(
        page.contains(r#"<meta name="viewport" content="width=device-width, initial-scale=1">"#),
        "the Swagger UI page has a viewport"
    );
}

#[tokio::test]
async fn every_game_type_is_listed_with_defaults_that_create_a_game() {
    let app = crate::support::TestApp::spawn().await;
    let listed: Value = app.get("/v1/game-types", None).await.json().await.unwrap();
    let spec: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let games = listed["games"].as_array().unwrap();
    let mut names: Vec<&str> = games.iter().map(|g| g["game"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        ["arboretum", "draft_cider", "flower_fields", "treeblox"]
    );
    for game in games {
        let schema = game["options_schema"].as_str().unwrap();
        assert!(
            spec["components"]["schemas"].get(schema).is_some(),
            "{schema} is in the document"
        );
        let created: Value = app
            .post_json(
                "/v1/games",
                None,
                &serde_json::json!({"game": game["game"], "options": game["default_options"]}),
            )
            .await
            .json()
            .await
            .unwrap();
        let seats: Vec<&String> = created["seat_tokens"].as_object().unwrap().keys().collect();
        let listed_seats: Vec<String> = serde_json::from_value(game["seats"].clone()).unwrap();
        assert_eq!(seats.len(), listed_seats.len(), "{game}");
        assert!(
            listed_seats.iter().all(|seat| seats.contains(&seat)),
            "{game}"
        );
    }
}

#[tokio::test]
async fn the_root_page_leads_a_person_to_the_docs_and_the_games() {
    let app = crate::support::TestApp::spawn().await;
    let response = app.get("/", None).await;
    assert_eq!(response.status(), reqwest::StatusCode::OK);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    let page = response.text().await.unwrap();
    for link in ["/docs/", "/openapi.json", "/v1/game-types"] {
        assert!(page.contains(&format!("href=\"{link}\"")), "links {link}");
    }
}

/// The component names reachable from `schema` through `$ref`s.
fn reachable(document: &Value, schema: &Value, out: &mut std::collections::BTreeSet<String>) {
    match schema {
        Value::Object(object) => {
            if let Some(name) = object
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                if out.insert(name.to_string()) {
                    reachable(document, &document["components"]["schemas"][name], out);
                }
            }
            object
                .values()
                .for_each(|child| reachable(document, child, out));
        }
        Value::Array(items) => items.iter().for_each(|item| reachable(document, item, out)),
        _ => {}
    }
}

/// Cross-game misparsing cannot happen: every answer whose shape depends on
/// the game is a `oneOf` discriminated by `game` with one variant per game,
/// and from each variant only that game's shapes can be reached (no
/// "any game" union, no other game's type), so a generated client parses
/// Treeblox's `{"type": "timeout", "seat": "dark"}` as Treeblox's.
#[test]
fn every_game_dependent_answer_is_discriminated_by_game_down_to_its_leaves() {
    let document: Value = serde_json::from_str(&umpire_api::openapi::document_json()).unwrap();
    let registry = umpire_games::registry();
    let prefix = |game: &str| -> String {
        game.split('_')
            .map(|part| part[..1].to_uppercase() + &part[1..])
            .collect()
    };
    let prefixes: Vec<(String, String)> = registry
        .ids()
        .map(|game| (game.to_string(), prefix(game)))
        .collect();
    let mut discriminated = 0;
    for (path, operations) in document["paths"].as_object().unwrap() {
        for (method, operation) in operations.as_object().unwrap() {
            for (status, response) in operation["responses"].as_object().unwrap() {
                if !status.starts_with('2') {
                    continue;
                }
                let mut names = std::collections::BTreeSet::new();
                reachable(&document, response, &mut names);
                let game_dependent = names.iter().any(|name| {
                    name.starts_with("Any")
                        || prefixes.iter().any(|(_, prefix)| name.starts_with(prefix))
                });
                if !game_dependent || path == "/v1/game-types" {
                    continue;
                }
                let Some(root) = response["content"]
                    .as_object()
                    .and_then(|content| content.values().next())
                    .and_then(|media| media.pointer("/schema/$ref"))
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/components/schemas/"))
                else {
                    panic!("{method} {path} {status}: a game-dependent answer that is not a named schema");
                };
                let union = &document["components"]["schemas"][root];
                assert_eq!(
                    union["discriminator"]["propertyName"], "game",
                    "{method} {path}: {root} is not discriminated by game"
                );
                for (game, prefix) in &prefixes {
                    let variant = format!("{prefix}{root}");
                    assert_eq!(
                        union["discriminator"]["mapping"][game],
                        format!("#/components/schemas/{variant}"),
                        "{root}: no variant for {game}"
                    );
                    let schema = &document["components"]["schemas"][&variant];
                    let parts = std::iter::once(schema)
                        .chain(schema["allOf"].as_array().into_iter().flatten());
                    let games: Vec<&Value> = parts
                        .filter_map(|part| part.pointer("/properties/game/enum"))
                        .collect();
                    assert_eq!(
                        games,
                        [&serde_json::json!([game])],
                        "{variant}: `game` is not {game} alone"
                    );
                    let mut inside = std::collections::BTreeSet::new();
                    reachable(
                        &document,
                        &serde_json::json!({"$ref": format!("#/components/schemas/{variant}")}),
                        &mut inside,
                    );
                    for name in &inside {
                        assert!(
                            !name.starts_with("Any"),
                            "{variant} reaches the any-game union {name}"
                        );
                        for (other, other_prefix) in &prefixes {
                            assert!(
                                other == game || !name.starts_with(other_prefix.as_str()),
                                "{variant} reaches {other}'s {name}"
                            );
                        }
                    }
                }
                discriminated += 1;
            }
        }
    }
    assert!(discriminated >= 10, "only {discriminated} answers checked");
}

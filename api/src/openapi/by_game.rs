//! Makes every response whose shape depends on the game self-describing for
//! generated clients.
//!
//! The derived schemas say "an event of any game" (`AnyEvent`, an `anyOf`
//! over the four games' events). Type tags repeat across games (`timeout`
//! is an action of Treeblox and of Draft & Cider, with different fields), so
//! a client that tries each alternative in turn can take one game's event
//! for another's. Every such response carries `game`; here each becomes a
//! `oneOf` of one copy per game — `ArboretumStateResponse`,
//! `TreebloxStateResponse`, … — whose `game` is that game's id alone and
//! whose inner shapes are that game's alone, with a `discriminator` on
//! `game`. The bytes on the wire do not change.

use std::collections::{BTreeMap, BTreeSet};

use heck::ToUpperCamelCase;
use serde_json::{json, Map, Value};
use umpire_domain::schema_names::{ANY_ACTION, ANY_EVENT, ANY_OPTIONS, ANY_SCORE, ANY_VIEW};
use umpire_service::schemas::{SHARED_ACTIONS, SHARED_EVENTS};

/// The responses (and nothing else) that become one shape per game. Each has
/// a top-level `game`.
const BY_GAME: &[&str] = &[
    "ActionAccepted",
    "ActionCheck",
    "Archive",
    "AuditReport",
    "EventPage",
    "GameType",
    "LegalActions",
    "ScoreResponse",
    "StateResponse",
    "StreamEvent",
    "WhatIfReport",
];

/// What an "any game" schema is for one game.
struct GameShapes {
    id: String,
    /// The prefix of its copies: `Arboretum`, `DraftCider`, …
    prefix: String,
    /// `AnyAction` → `ArboretumAction`, …
    by_any: BTreeMap<&'static str, String>,
}

const PREFIX: &str = "#/components/schemas/";
const HIDDEN_EVENT: &str = "HiddenEvent";

fn games() -> Vec<GameShapes> {
    umpire_games::registry()
        .games()
        .map(|game| {
            let schemas = game.schemas();
            GameShapes {
                id: game.id().to_string(),
                prefix: game.id().to_upper_camel_case(),
                by_any: BTreeMap::from([
                    (ANY_ACTION, schemas.action),
                    (ANY_EVENT, schemas.event),
                    (ANY_VIEW, schemas.view),
                    (ANY_SCORE, schemas.score),
                    (ANY_OPTIONS, schemas.options),
                ]),
            }
        })
        .collect()
}

/// Rewrites `document` (the OpenAPI document as JSON) in place.
pub fn discriminate(document: &mut Value) {
    let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let games = games();
    let mut copies = Copies {
        originals: schemas.clone(),
        made: Map::new(),
        game_dependent: BTreeSet::new(),
    };
    copies.find_game_dependent();
    for root in BY_GAME {
        let Some(original) = copies.originals.get(*root).cloned() else {
            continue;
        };
        let mut variants = Vec::new();
        let mut mapping = Map::new();
        for game in &games {
            let name = copies.specialise(root, game);
            if let Some(copy) = copies.made.get_mut(&name) {
                pin_game(copy, game);
            }
            let reference = format!("{PREFIX}{name}");
            variants.push(json!({"$ref": reference}));
            mapping.insert(game.id.clone(), Value::String(reference));
        }
        let mut union = json!({
            "title": root,
            "oneOf": variants,
            "discriminator": {"propertyName": "game", "mapping": mapping},
        });
        if let Some(description) = original.get("description") {
            union["description"] = description.clone();
        }
        schemas.insert(root.to_string(), union);
    }
    for (name, copy) in copies.made {
        schemas.insert(name, copy);
    }
    // The game-independent originals of what was copied (EventEnvelope, …)
    // are no longer referenced by anything: drop them, and then what only
    // they referred to.
    loop {
        let used = referenced(document);
        let Some(schemas) = document
            .pointer_mut("/components/schemas")
            .and_then(Value::as_object_mut)
        else {
            return;
        };
        let before = schemas.len();
        schemas.retain(|name, _| used.contains(name) || !copies.game_dependent.contains(name));
        if schemas.len() == before {
            return;
        }
    }
}

/// The copies made so far, from the originals.
struct Copies {
    originals: Map<String, Value>,
    made: Map<String, Value>,
    /// The original schemas that refer, at any depth, to an "any game" one.
    game_dependent: BTreeSet<String>,
}

impl Copies {
    fn find_game_dependent(&mut self) {
        let any: BTreeSet<String> = [ANY_ACTION, ANY_EVENT, ANY_VIEW, ANY_SCORE, ANY_OPTIONS]
            .into_iter()
            .map(String::from)
            .collect();
        // A fixed point: a schema depends on the game when something it
        // refers to does.
        loop {
            let before = self.game_dependent.len();
            for (name, schema) in &self.originals {
                if any.contains(name) || self.game_dependent.contains(name) {
                    continue;
                }
                let mut refs = BTreeSet::new();
                references(schema, &mut refs);
                if refs
                    .iter()
                    .any(|r| any.contains(r) || self.game_dependent.contains(r))
                {
                    self.game_dependent.insert(name.clone());
                }
            }
            if self.game_dependent.len() == before {
                break;
            }
        }
    }

    /// The name of `name`'s copy for `game`, made if needed.
    fn specialise(&mut self, name: &str, game: &GameShapes) -> String {
        let copy_name = format!("{}{name}", game.prefix);
        if self.made.contains_key(&copy_name) {
            return copy_name;
        }
        let mut copy = self.originals.get(name).cloned().unwrap_or(Value::Null);
        // Reserved first, so a schema that refers to itself ends.
        self.made.insert(copy_name.clone(), Value::Null);
        self.rewrite(&mut copy, game);
        if let Some(object) = copy.as_object_mut() {
            object.insert("title".into(), Value::String(copy_name.clone()));
        }
        self.made.insert(copy_name.clone(), copy);
        copy_name
    }

    /// Points every reference in `value` at `game`'s shapes.
    fn rewrite(&mut self, value: &mut Value, game: &GameShapes) {
        match value {
            Value::Object(object) => {
                let target = object
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix(PREFIX))
                    .map(str::to_string);
                if let Some(target) = target {
                    if target == ANY_EVENT || target == ANY_ACTION {
                        // This game's events (or actions), those every game
                        // has (the clock's, a seat's reissue) and, for
                        // events, the placeholder of one the viewer may not
                        // see.
                        let shared: &[&str] = if target == ANY_EVENT {
                            &SHARED_EVENTS
                        } else {
                            &SHARED_ACTIONS
                        };
                        let mut alternatives = vec![
                            json!({"$ref": format!("{PREFIX}{}", game.by_any[target.as_str()])}),
                        ];
                        alternatives.extend(
                            shared
                                .iter()
                                .map(|name| json!({"$ref": format!("{PREFIX}{name}")})),
                        );
                        if target == ANY_EVENT {
                            alternatives.push(json!({"$ref": format!("{PREFIX}{HIDDEN_EVENT}")}));
                        }
                        object.remove("$ref");
                        object.insert("anyOf".into(), Value::Array(alternatives));
                    } else if let Some(own) = game.by_any.get(target.as_str()) {
                        object.insert("$ref".into(), Value::String(format!("{PREFIX}{own}")));
                    } else if self.game_dependent.contains(&target) {
                        let copy = self.specialise(&target, game);
                        object.insert("$ref".into(), Value::String(format!("{PREFIX}{copy}")));
                    }
                    return;
                }
                for child in object.values_mut() {
                    self.rewrite(child, game);
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.rewrite(item, game);
                }
            }
            _ => {}
        }
    }
}

/// Narrows a copy's `game` to the one game it is for (in the copy itself,
/// or in the part of an `allOf` that has it).
fn pin_game(copy: &mut Value, game: &GameShapes) {
    if let Some(parts) = copy.get_mut("allOf").and_then(Value::as_array_mut) {
        parts.iter_mut().for_each(|part| pin_game(part, game));
    }
    if let Some(property) = copy.pointer_mut("/properties/game") {
        let description = property.get("description").cloned();
        *property = json!({"type": "string", "enum": [game.id]});
        if let Some(description) = description {
            property["description"] = description;
        }
    }
}

/// The component names `value` refers to.
fn references(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(object) => {
            if let Some(target) = object
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix(PREFIX))
            {
                out.insert(target.to_string());
            }
            object.values().for_each(|child| references(child, out));
        }
        Value::Array(items) => items.iter().for_each(|item| references(item, out)),
        _ => {}
    }
}

/// Every component referenced from anywhere in the document.
fn referenced(document: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    references(document, &mut out);
    out
}

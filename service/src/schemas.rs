//! OpenAPI schemas that stand for "any game's" action, event, state, score and
//! options: an `anyOf` over every registered game's own schema, built from the
//! registry so that adding a game adds its shapes to the spec by itself. The
//! action and event unions carry examples of every shape: each game's named
//! action examples, and one event of every type met in a deterministic game.

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde_json::Value;
use umpire_domain::erased::event_type;
use umpire_domain::Actor;

use umpire_domain::GameSchemas;
use utoipa::openapi::schema::{AnyOfBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};

fn all_games() -> Vec<GameSchemas> {
    umpire_games::registry()
        .games()
        .map(|game| game.schemas())
        .collect()
}

/// Which examples a union carries.
#[derive(Clone, Copy)]
enum Examples {
    None,
    Actions,
    Events,
}

fn any_of(
    pick: fn(&GameSchemas) -> &String,
    description: &str,
    examples: Examples,
) -> RefOr<Schema> {
    // anyOf, not oneOf: shapes of different games can coincide (`{"type":
    // "timeout", "seat": 0}` is an action of two games), which oneOf forbids.
    let mut builder = AnyOfBuilder::new().description(Some(description.to_string()));
    for game in all_games() {
        builder = builder.item(Ref::from_schema_name(pick(&game).clone()));
    }
    // The clock's actions and events, the umpire's reissue of a seat and
    // the umpire's ruling belong to every game (docs/rules/clock.md,
    // docs/rules/seats.md, docs/rules/umpire.md).
    match examples {
        Examples::Actions => {
            for name in SHARED_ACTIONS {
                builder = builder.item(Ref::from_schema_name(name));
            }
        }
        Examples::Events => {
            for name in SHARED_EVENTS {
                builder = builder.item(Ref::from_schema_name(name));
            }
            builder = builder.item(Ref::from_schema_name(HIDDEN_EVENT));
        }
        Examples::None => {}
    }
    builder = match examples {
        Examples::None => builder,
        Examples::Actions => builder.examples(
            all_games()
                .into_iter()
                .flat_map(|game| game.action_examples.into_iter().map(|(_, example)| example))
                .chain([
                    serde_json::json!({"type": "clock_pause"}),
                    serde_json::json!({"type": "clock_add_time", "seat": "red", "ms": 30000}),
                    serde_json::json!({"type": "record_ruling", "text": "The card shown by accident stays in play."}),
                ]),
        ),
        Examples::Events => builder.examples(EVENT_EXAMPLES.get_or_init(event_examples).clone()),
    };
    RefOr::T(Schema::AnyOf(builder.build()))
}

static EVENT_EXAMPLES: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();

/// One event of every type each game produces, from a game played with a
/// fixed seed and a fixed choice of actions (so the spec is reproducible).
fn event_examples() -> Vec<Value> {
    let registry = umpire_games::registry();
    let mut examples = Vec::new();
    for game in registry.games() {
        let mut seen = BTreeSet::new();
        let Ok(options) = game.validate_options(&Value::Null) else {
            continue;
        };
        let (Ok(mut state), Ok(setup)) = (game.new_match(&options), game.setup(&options, 1)) else {
            continue;
        };
        let mut record = |event: &Value, state: &mut Box<dyn umpire_domain::DynMatch>| {
            if seen.insert(event_type(event).to_string()) {
                examples.push(event.clone());
            }
            let _ = state.apply_json(event);
        };
        for event in &setup {
            record(event, &mut state);
        }
        for step in 0..3_000usize {
            let status = state.status();
            if status.finished {
                break;
            }
            let actor = match status.to_act.get(step % status.to_act.len().max(1)) {
                Some(seat) => Actor::Seat(seat.clone()),
                None => Actor::Umpire,
            };
            let legal = state.legal_actions(&actor).unwrap_or_default();
            let Some(action) = legal.get((step * 7) % legal.len().max(1)) else {
                break;
            };
            let Ok(events) = state.decide(&actor, action) else {
                break;
            };
            for event in &events {
                record(event, &mut state);
            }
        }
    }
    examples
}

/// The name of the placeholder schema for an event the viewer may not see.
const HIDDEN_EVENT: &str = "HiddenEvent";

/// `{"type": "hidden"}`: what stands in the sequence for an event the viewer
/// may not see, so that every viewer's sequence has no gaps.
fn hidden_event() -> RefOr<Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    RefOr::T(Schema::Object(
        ObjectBuilder::new()
            .title(Some(HIDDEN_EVENT))
            .description(Some(
                "An event the viewer may not see, in its place in the sequence: that it \
                 happened and when are public, nothing else.",
            ))
            .property(
                "type",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some([umpire_domain::erased::HIDDEN_EVENT_TYPE])),
            )
            .required("type")
            .build(),
    ))
}

/// The schemas of the actions and events every game has besides its own:
/// the clock's, the reissue of a seat's token and the umpire's ruling.
pub const SHARED_ACTIONS: [&str; 3] = ["ClockAction", "SeatTokenAction", "RulingAction"];
pub const SHARED_EVENTS: [&str; 3] = ["ClockEvent", "SeatTokenEvent", "RulingEvent"];

fn collect_components(out: &mut Vec<(String, RefOr<Schema>)>) {
    use umpire_domain::clock::{ClockAction, ClockEvent};
    use umpire_domain::rulings::{RulingAction, RulingEvent};
    use umpire_domain::seat_tokens::{SeatTokenAction, SeatTokenEvent};
    use utoipa::PartialSchema;
    if !out.iter().any(|(existing, _)| existing == HIDDEN_EVENT) {
        out.push((HIDDEN_EVENT.to_string(), hidden_event()));
    }
    for (name, schema) in [
        (SHARED_ACTIONS[0], ClockAction::schema()),
        (SHARED_ACTIONS[1], SeatTokenAction::schema()),
        (SHARED_ACTIONS[2], RulingAction::schema()),
        (SHARED_EVENTS[0], ClockEvent::schema()),
        (SHARED_EVENTS[1], SeatTokenEvent::schema()),
        (SHARED_EVENTS[2], RulingEvent::schema()),
    ] {
        if !out.iter().any(|(existing, _)| existing == name) {
            out.push((name.to_string(), with_variant_titles(name, schema)));
        }
    }
    for game in all_games() {
        for (name, schema) in game.components {
            if !out.iter().any(|(existing, _)| *existing == name) {
                let schema = with_variant_titles(&name, schema);
                out.push((name, schema));
            }
        }
    }
}

/// Titles each variant of a `type`-tagged enum after its tag
/// (`ArboretumActionBid`), so that generated clients name their classes for
/// what they are instead of `ArboretumActionType1`.
fn with_variant_titles(name: &str, schema: RefOr<Schema>) -> RefOr<Schema> {
    use heck::ToUpperCamelCase;
    let Ok(mut json) = serde_json::to_value(&schema) else {
        return schema;
    };
    let Some(variants) = json.get_mut("oneOf").and_then(Value::as_array_mut) else {
        return schema;
    };
    for variant in variants {
        let tag = variant
            .pointer("/properties/type/enum/0")
            .and_then(Value::as_str)
            .map(|tag| tag.to_upper_camel_case());
        if let (Some(tag), Some(object)) = (tag, variant.as_object_mut()) {
            object
                .entry("title")
                .or_insert_with(|| Value::String(format!("{name}{tag}")));
        }
    }
    serde_json::from_value(json).unwrap_or(schema)
}

macro_rules! any_game_schema {
    ($name:ident, $field:ident, $description:expr, $examples:expr) => {
        #[doc = $description]
        pub struct $name;

        impl utoipa::PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                any_of(|game| &game.$field, $description, $examples)
            }
        }

        impl utoipa::ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
            fn schemas(out: &mut Vec<(String, RefOr<Schema>)>) {
                collect_components(out);
            }
        }
    };
}

any_game_schema!(
    AnyAction,
    action,
    "An action of one of the games, tagged by `type`.",
    Examples::Actions
);
any_game_schema!(
    AnyEvent,
    event,
    "An event of one of the games, tagged by `type`, as the viewer may see it.",
    Examples::Events
);
any_game_schema!(
    AnyView,
    view,
    "A game's state as the viewer may see it.",
    Examples::None
);
any_game_schema!(
    AnyScore,
    score,
    "A game's score sheet as the viewer may see it.",
    Examples::None
);
any_game_schema!(
    AnyOptions,
    options,
    "Setup options of one of the games; every field has a default.",
    Examples::None
);

//! OpenAPI schemas that stand for "any game's" action, event, state, score and
//! options: a `oneOf` over every registered game's own schema, built from the
//! registry so that adding a game adds its shapes to the spec by itself.

use std::borrow::Cow;

use umpire_domain::GameSchemas;
use utoipa::openapi::schema::{AnyOfBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};

fn all_games() -> Vec<GameSchemas> {
    umpire_games::registry()
        .games()
        .map(|game| game.schemas())
        .collect()
}

fn any_of(pick: fn(&GameSchemas) -> &String, description: &str) -> RefOr<Schema> {
    // anyOf, not oneOf: shapes of different games can coincide (`{"type":
    // "timeout", "seat": 0}` is an action of two games), which oneOf forbids.
    let mut builder = AnyOfBuilder::new().description(Some(description.to_string()));
    for game in all_games() {
        builder = builder.item(Ref::from_schema_name(pick(&game).clone()));
    }
    RefOr::T(Schema::AnyOf(builder.build()))
}

fn collect_components(out: &mut Vec<(String, RefOr<Schema>)>) {
    for game in all_games() {
        for (name, schema) in game.components {
            if !out.iter().any(|(existing, _)| *existing == name) {
                out.push((name, schema));
            }
        }
    }
}

macro_rules! any_game_schema {
    ($name:ident, $field:ident, $description:expr) => {
        #[doc = $description]
        pub struct $name;

        impl utoipa::PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                any_of(|game| &game.$field, $description)
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
    "An action of one of the games, tagged by `type`."
);
any_game_schema!(
    AnyEvent,
    event,
    "An event of one of the games, tagged by `type`, as the viewer may see it."
);
any_game_schema!(AnyView, view, "A game's state as the viewer may see it.");
any_game_schema!(
    AnyScore,
    score,
    "A game's score sheet as the viewer may see it."
);
any_game_schema!(
    AnyOptions,
    options,
    "Setup options of one of the games; every field has a default."
);

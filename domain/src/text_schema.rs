//! The schema of a game's compact text values — a card `Q7`, a cell `D5`, a
//! piece `red-blue` — written once for every game: a string with the
//! pattern it must match, what it means and an example.

use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;

/// A string matching `pattern`, described by `description`, with `example`.
pub fn with_pattern(description: &str, pattern: &str, example: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(description))
        .pattern(Some(pattern))
        .examples([serde_json::Value::from(example)])
        .into()
}

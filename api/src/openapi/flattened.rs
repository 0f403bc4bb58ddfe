//! Structs composed with `#[serde(flatten)]` — an audit report of its
//! opening and closing, a decision's verdict inside today's verdict and a
//! what-if outcome — described as the one object each is on the wire.
//!
//! utoipa describes a flattened field as an `allOf` of the field's schema
//! and the rest. That validates the same, but generators make a class per
//! part, and [`super::by_game`] looks for the object's own `game`. Where
//! every part is a plain inline object, the parts are merged back into
//! one: their properties and required fields in field order, with the
//! description of the whole.

use utoipa::openapi::schema::{AllOf, Object, ObjectBuilder, Schema, Type};
use utoipa::openapi::{OpenApi, RefOr};

/// Merges every component schema that is an `allOf` of plain objects.
pub fn merge_flattened(document: &mut OpenApi) {
    let Some(components) = document.components.as_mut() else {
        return;
    };
    for schema in components.schemas.values_mut() {
        let RefOr::T(Schema::AllOf(all_of)) = schema else {
            continue;
        };
        if let Some(whole) = merged(all_of) {
            *schema = RefOr::T(Schema::Object(whole));
        }
    }
}

/// The one object `all_of` describes; `None` when a part is anything but a
/// plain object (a reference, a union, a map), which stays composed.
fn merged(all_of: &AllOf) -> Option<Object> {
    let plain = ObjectBuilder::new().schema_type(Type::Object).build();
    let mut whole = plain.clone();
    whole.description = all_of.description.clone();
    for part in &all_of.items {
        let RefOr::T(Schema::Object(part)) = part else {
            return None;
        };
        let mut rest = part.clone();
        rest.description = None;
        let required = std::mem::take(&mut rest.required);
        let properties = std::mem::take(&mut rest.properties);
        if rest != plain {
            return None;
        }
        whole.required.extend(required);
        whole.properties.extend(properties);
    }
    Some(whole)
}

//! The names of the schemas that stand for "any game's" action, event,
//! view, score sheet and options in the OpenAPI document. The service
//! defines them from the registry (`service/src/schemas.rs`); shapes below
//! it — a recorded event, an archive, an audit — refer to them by name,
//! since the games are not known down here.

use utoipa::openapi::schema::{OneOfBuilder, Schema, Type};
use utoipa::openapi::{ObjectBuilder, Ref, RefOr};

pub const ANY_ACTION: &str = "AnyAction";
pub const ANY_EVENT: &str = "AnyEvent";
pub const ANY_VIEW: &str = "AnyView";
pub const ANY_SCORE: &str = "AnyScore";
pub const ANY_OPTIONS: &str = "AnyOptions";

pub fn any_action() -> RefOr<Schema> {
    Ref::from_schema_name(ANY_ACTION).into()
}

pub fn any_event() -> RefOr<Schema> {
    Ref::from_schema_name(ANY_EVENT).into()
}

pub fn any_view() -> RefOr<Schema> {
    Ref::from_schema_name(ANY_VIEW).into()
}

pub fn any_options() -> RefOr<Schema> {
    Ref::from_schema_name(ANY_OPTIONS).into()
}

/// An action, or `null` where nothing acted (setup events).
pub fn any_action_or_null() -> RefOr<Schema> {
    OneOfBuilder::new()
        .item(any_action())
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .into()
}

/// A list of events.
pub fn any_events() -> RefOr<Schema> {
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(any_event())
        .into()
}

/// Views by viewer (`spectator`, `seat:<name>`).
pub fn views_by_viewer() -> RefOr<Schema> {
    ObjectBuilder::new()
        .additional_properties(Some(any_view()))
        .into()
}

//! The names of the schemas that stand for "any game's" action, event,
//! view, score sheet and options in the OpenAPI document. The service
//! defines them from the registry (`service/src/schemas.rs`); shapes below
//! it — a recorded event, an archive, an audit — refer to them by name,
//! since the games are not known down here.

use utoipa::openapi::schema::{Schema, SchemaType};
use utoipa::openapi::{ObjectBuilder, Ref, RefOr};

pub const ANY_ACTION: &str = "AnyAction";
pub const ANY_EVENT: &str = "AnyEvent";
pub const ANY_VIEW: &str = "AnyView";
pub const ANY_SCORE: &str = "AnyScore";
pub const ANY_OPTIONS: &str = "AnyOptions";

pub fn any_event() -> RefOr<Schema> {
    Ref::from_schema_name(ANY_EVENT).into()
}

pub fn any_view() -> RefOr<Schema> {
    Ref::from_schema_name(ANY_VIEW).into()
}

pub fn any_options() -> RefOr<Schema> {
    Ref::from_schema_name(ANY_OPTIONS).into()
}

/// An action as it was sent and stored: an `AnyAction` when it was
/// accepted, but kept as the client wrote it (a refused one may be any JSON
/// at all), and `null` where nothing acted (setup events). So any value.
pub fn action_as_sent() -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(SchemaType::AnyValue)
        .description(Some(format!(
            "The action as sent: an {ANY_ACTION} when accepted, any JSON when refused, \
             null for setup events."
        )))
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

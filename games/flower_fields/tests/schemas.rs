//! The OpenAPI schemas: every referenced component is present, names carry
//! the game prefix, and every example action parses.

use umpire_domain::Game;
use umpire_flower_fields::{FlowerFields, FlowerFieldsAction};

#[test]
fn every_schema_reference_resolves_and_every_name_is_prefixed() {
    let schemas = FlowerFields::schemas();
    let names: Vec<&str> = schemas
        .components
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    for name in &names {
        assert!(
            name.starts_with("FlowerFields") || *name == "SeatIndex",
            "component {name} lacks the game prefix"
        );
    }
    let text = serde_json::to_string(
        &schemas
            .components
            .iter()
            .map(|(_, schema)| schema)
            .collect::<Vec<_>>(),
    )
    .expect("schemas serialise");
    for reference in text.split("#/components/schemas/").skip(1) {
        let name = reference.split('"').next().unwrap_or_default();
        assert!(names.contains(&name), "unresolved reference {name}");
    }
    assert_eq!(schemas.action, "FlowerFieldsAction");
}

#[test]
fn every_example_action_parses() {
    let schemas = FlowerFields::schemas();
    assert_eq!(schemas.action_examples.len(), 8);
    for (name, example) in schemas.action_examples {
        serde_json::from_value::<FlowerFieldsAction>(example.clone())
            .unwrap_or_else(|error| panic!("{name}: {error}"));
    }
}

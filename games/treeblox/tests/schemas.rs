//! The OpenAPI schemas and the JSON shapes of actions and events.

use serde_json::json;
use umpire_domain::Game;
use umpire_treeblox::{Treeblox, TreebloxAction, TreebloxEvent, TreebloxOptions};

#[test]
fn every_schema_component_carries_the_treeblox_prefix() {
    let schemas = Treeblox::schemas();
    assert_eq!(schemas.action, "TreebloxAction");
    assert_eq!(schemas.event, "TreebloxEvent");
    assert!(!schemas.components.is_empty());
    for (name, _) in &schemas.components {
        assert!(
            name.starts_with("Treeblox"),
            "component {name} lacks the game prefix"
        );
    }
}

#[test]
fn every_action_example_is_a_valid_action() {
    let schemas = Treeblox::schemas();
    let names: Vec<&str> = schemas
        .action_examples
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(names, ["grow", "pass", "timeout"]);
    for (name, example) in schemas.action_examples {
        let parsed: TreebloxAction = serde_json::from_value(example.clone())
            .unwrap_or_else(|error| panic!("example {name} does not parse: {error}"));
        assert_eq!(serde_json::to_value(parsed).unwrap(), example);
    }
}

#[test]
fn actions_have_the_rule_book_shape_and_bad_shapes_are_malformed() {
    let action: TreebloxAction = serde_json::from_value(json!(
        {"type": "grow", "placements": [{"kind": "leaf", "cell": [0, 0, 0]}]}
    ))
    .unwrap();
    assert_eq!(
        serde_json::to_value(&action).unwrap(),
        json!({"type": "grow", "placements": [{"kind": "leaf", "cell": [0, 0, 0]}]})
    );
    for malformed in [
        json!({"type": "grow", "placements": [{"kind": "twig", "cell": [0, 0, 0]}]}),
        json!({"type": "grow", "placements": [{"kind": "leaf", "cell": [0, 0]}]}),
        json!({"type": "grow", "placements": [{"kind": "leaf", "cell": [0, 0, 4294967296i64]}]}),
        json!({"type": "grow", "placements": [{"kind": "leaf", "cell": "A1"}]}),
        json!({"type": "plant"}),
    ] {
        assert!(
            serde_json::from_value::<TreebloxAction>(malformed.clone()).is_err(),
            "{malformed}"
        );
    }
}

#[test]
fn events_are_past_tense_and_tagged_by_type() {
    let event = TreebloxEvent::CubePlaced {
        seat: umpire_treeblox::TreebloxSeat::Dark,
        kind: umpire_treeblox::TreebloxCubeKind::Branch,
        cell: umpire_treeblox::TreebloxCell::new(1, -1, 0),
    };
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({"type": "cube_placed", "seat": "dark", "kind": "branch", "cell": [1, -1, 0]})
    );
}

#[test]
fn unknown_options_are_refused() {
    assert!(serde_json::from_value::<TreebloxOptions>(json!({})).is_ok());
    assert!(serde_json::from_value::<TreebloxOptions>(json!({"board": 5})).is_err());
}

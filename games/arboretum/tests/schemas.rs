//! The OpenAPI components: game-prefixed names and valid examples.

use umpire_arboretum::{Arboretum, ArboretumAction, ArboretumEvent};
use umpire_domain::Game;

#[test]
fn every_schema_component_is_prefixed_with_the_game_name() {
    let schemas = Arboretum::schemas();
    assert_eq!(schemas.action, "ArboretumAction");
    assert_eq!(schemas.event, "ArboretumEvent");
    assert_eq!(schemas.view, "ArboretumView");
    assert_eq!(schemas.score, "ArboretumScore");
    assert_eq!(schemas.options, "ArboretumOptions");
    for (name, _) in &schemas.components {
        assert!(
            name.starts_with("Arboretum"),
            "component {name} lacks the game prefix"
        );
    }
    let names: Vec<&str> = schemas
        .components
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    for expected in [
        "ArboretumCard",
        "ArboretumCell",
        "ArboretumSeat",
        "ArboretumGroup",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
}

#[test]
fn there_is_one_valid_example_per_action_type() {
    let schemas = Arboretum::schemas();
    let mut types = Vec::new();
    for (name, example) in &schemas.action_examples {
        let action: ArboretumAction = serde_json::from_value(example.clone())
            .unwrap_or_else(|error| panic!("example {name} does not parse: {error}"));
        assert_eq!(serde_json::to_value(&action).unwrap(), *example);
        assert_eq!(example["type"], name.as_str());
        types.push(name.clone());
    }
    assert_eq!(
        types,
        [
            "choose_start",
            "bid",
            "plant",
            "dig",
            "take",
            "hire",
            "start",
            "skip",
            "timeout"
        ]
    );
}

#[test]
fn actions_with_unknown_fields_or_malformed_cards_are_rejected_by_the_parser() {
    for bad in [
        r#"{"type": "plant", "card": "Q9", "cell": "D5"}"#,
        r#"{"type": "plant", "card": "Q7", "cell": "G5"}"#,
        r#"{"type": "plant", "card": "Q7", "cell": "D5", "extra": 1}"#,
        r#"{"type": "bid", "groups": [{"size": 2, "plan": "orchard"}]}"#,
        r#"{"type": "fly"}"#,
    ] {
        assert!(
            serde_json::from_str::<ArboretumAction>(bad).is_err(),
            "{bad}"
        );
    }
    let take: ArboretumAction = serde_json::from_str(r#"{"type": "take", "card": "T4"}"#).unwrap();
    assert_eq!(
        serde_json::to_string(&take).unwrap(),
        r#"{"type":"take","card":"T4"}"#
    );
    let event = ArboretumEvent::CardPlanted {
        seat: umpire_arboretum::ArboretumSeat::Red,
        card: umpire_arboretum::ArboretumCard::of("Q7"),
        cell: umpire_arboretum::ArboretumCell::of("D5"),
    };
    assert_eq!(
        serde_json::to_string(&event).unwrap(),
        r#"{"type":"card_planted","seat":"red","card":"Q7","cell":"D5"}"#
    );
}

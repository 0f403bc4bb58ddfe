//! `CreateGameRequest.game` is published as an enum of the registered games,
//! read from the registry: a game registered is a name clients can send.

use serde_json::Value;

#[test]
fn the_game_a_request_creates_is_one_of_the_registered_games_in_the_document() {
    let document = umpire_api::openapi::document();
    assert_eq!(
        document.pointer("/components/schemas/CreateGameRequest/properties/game/$ref"),
        Some(&Value::from("#/components/schemas/GameName"))
    );
    let published: Vec<&str> = document
        .pointer("/components/schemas/GameName/enum")
        .and_then(Value::as_array)
        .expect("GameName is an enum")
        .iter()
        .map(|name| name.as_str().expect("a name"))
        .collect();
    let registered: Vec<&str> = umpire_games::registry()
        .games()
        .map(|game| game.id())
        .collect();
    assert_eq!(published, registered);
}

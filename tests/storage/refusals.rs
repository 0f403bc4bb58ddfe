//! Refused actions are kept bounded: identical ones counted on one row, at
//! most `REFUSALS_KEPT_PER_VERSION` distinct ones per (game, actor, version),
//! the rest counted on one overflow row.

use serde_json::json;
use umpire_domain::record::RecordedRejection;
use umpire_storage::{EventStore, REFUSALS_KEPT_PER_VERSION, REFUSALS_NOT_KEPT_CODE};
use uuid::Uuid;

use crate::{fresh_store, new_game};

fn refusal(at_version: u64, actor: &str, card: u64) -> RecordedRejection {
    RecordedRejection {
        at_version,
        actor: actor.into(),
        action: json!({"type": "plant", "card": format!("Q{card}"), "cell": "D5"}),
        code: "arboretum.card_not_in_hand".into(),
        message: format!("Q{card} is not in your hand."),
        rule: Some("arboretum §4".into()),
        rules_version: 1,
        recorded_at: String::new(),
        repeats: 1,
    }
}

async fn record(store: &EventStore, game_id: Uuid, rejection: &RecordedRejection, times: usize) {
    for _ in 0..times {
        store.record_rejection(game_id, rejection).await.unwrap();
    }
}

#[tokio::test]
async fn an_identical_refusal_is_counted_not_stored_again() {
    let (store, _) = fresh_store().await;
    let game_id = new_game(&store).await;
    record(&store, game_id, &refusal(1, "seat:blue", 7), 100).await;
    // The same action at another version, or by another actor, is another refusal.
    record(&store, game_id, &refusal(2, "seat:blue", 7), 1).await;
    record(&store, game_id, &refusal(1, "seat:red", 7), 2).await;
    let rejections = store.rejections(game_id).await.unwrap();
    let counts: Vec<(u64, &str, u64)> = rejections
        .iter()
        .map(|r| (r.at_version, r.actor.as_str(), r.repeats))
        .collect();
    assert_eq!(rejections.len(), 3, "{counts:?}");
    assert!(counts.contains(&(1, "seat:blue", 100)), "{counts:?}");
    assert!(counts.contains(&(2, "seat:blue", 1)), "{counts:?}");
    assert!(counts.contains(&(1, "seat:red", 2)), "{counts:?}");
}

#[tokio::test]
async fn distinct_refusals_beyond_the_cap_are_only_counted() {
    let (store, _) = fresh_store().await;
    let game_id = new_game(&store).await;
    let beyond = 8;
    for card in 0..REFUSALS_KEPT_PER_VERSION + beyond {
        record(&store, game_id, &refusal(1, "seat:blue", card), 1).await;
    }
    // A refusal already kept is still counted on its own row at the cap.
    record(&store, game_id, &refusal(1, "seat:blue", 0), 4).await;
    let rejections = store.rejections(game_id).await.unwrap();
    assert_eq!(rejections.len() as u64, REFUSALS_KEPT_PER_VERSION + 1);
    let overflow: Vec<&RecordedRejection> = rejections
        .iter()
        .filter(|r| r.code == REFUSALS_NOT_KEPT_CODE)
        .collect();
    assert_eq!(overflow.len(), 1);
    assert_eq!(overflow[0].repeats, beyond);
    assert!(overflow[0].action.is_null());
    let first = rejections
        .iter()
        .find(|r| r.action["card"] == "Q0")
        .unwrap();
    assert_eq!(first.repeats, 5);
}

#[tokio::test]
async fn a_message_quoting_a_nul_is_stored_with_a_replacement_character() {
    let (store, _) = fresh_store().await;
    let game_id = new_game(&store).await;
    let mut rejection = refusal(1, "seat:blue", 1);
    rejection.message = "Q\0 is not a card.".into();
    record(&store, game_id, &rejection, 1).await;
    let rejections = store.rejections(game_id).await.unwrap();
    assert_eq!(rejections[0].message, "Q\u{FFFD} is not a card.");
}

//! Refused actions are kept bounded: identical ones counted on one row, at
//! most `REFUSALS_KEPT_PER_VERSION` distinct ones per (game, actor, version),
//! the rest counted on one overflow row, and at most
//! `REFUSALS_KEPT_PER_GAME` rows in one game.

use serde_json::json;
use umpire_domain::record::RecordedRejection;
use umpire_storage::{
    EventStore, REFUSALS_KEPT_PER_GAME, REFUSALS_KEPT_PER_VERSION, REFUSALS_NOT_KEPT_CODE,
};
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

/// Fills `game_id` with `rows` refusal rows in one statement (as the owner:
/// recording them one by one would take the test's time, not the store's),
/// each a distinct refusal of `seat:green` at a version of its own from 100.
async fn fill_with_refusals(owner_url: &str, game_id: Uuid, rows: u64) {
    let (owner, connection) = tokio_postgres::connect(owner_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    owner
        .execute(
            "INSERT INTO rejected_actions
               (game_id, rejection_id, at_version, actor, action, code, message, rules_version)
             SELECT $1, gen_random_uuid(), 99 + n, 'seat:green', jsonb_build_object('n', n),
                    'arboretum.card_not_in_hand', 'filler', 1
             FROM generate_series(1, $2::bigint) AS n",
            &[&game_id, &(rows as i64)],
        )
        .await
        .unwrap();
}

#[tokio::test]
async fn a_game_holding_the_most_refusals_gets_no_new_row_but_still_counts_its_repeats() {
    let (store, owner_url) = fresh_store().await;
    let game_id = new_game(&store).await;
    // Blue's overflow row at version 1 exists before the game fills up.
    for card in 0..=REFUSALS_KEPT_PER_VERSION {
        record(&store, game_id, &refusal(1, "seat:blue", card), 1).await;
    }
    let before_filling = REFUSALS_KEPT_PER_VERSION + 1;
    fill_with_refusals(
        &owner_url,
        game_id,
        REFUSALS_KEPT_PER_GAME - before_filling - 1,
    )
    .await;
    // One row short of the cap: a new refusal is still kept.
    record(&store, game_id, &refusal(2, "seat:red", 1), 1).await;
    let rows = store.rejections(game_id).await.unwrap();
    assert_eq!(rows.len() as u64, REFUSALS_KEPT_PER_GAME);

    // Full: a new distinct refusal adds no row.
    record(&store, game_id, &refusal(2, "seat:red", 2), 1).await;
    record(&store, game_id, &refusal(3, "seat:red", 1), 1).await;
    // An identical one raises its row's count; a distinct one at a version
    // with an overflow row raises that row's.
    record(&store, game_id, &refusal(2, "seat:red", 1), 2).await;
    record(&store, game_id, &refusal(1, "seat:blue", 0), 1).await;
    record(&store, game_id, &refusal(1, "seat:blue", 500), 3).await;

    let rows = store.rejections(game_id).await.unwrap();
    assert_eq!(rows.len() as u64, REFUSALS_KEPT_PER_GAME);
    let repeats = |version: u64, actor: &str, code: &str, card: Option<u64>| {
        rows.iter()
            .filter(|r| r.at_version == version && r.actor == actor && r.code == code)
            .filter(|r| card.is_none_or(|card| r.action["card"] == format!("Q{card}")))
            .map(|r| r.repeats)
            .collect::<Vec<_>>()
    };
    let refused = "arboretum.card_not_in_hand";
    assert_eq!(repeats(2, "seat:red", refused, Some(1)), [3]);
    assert_eq!(repeats(2, "seat:red", refused, Some(2)), Vec::<u64>::new());
    assert_eq!(repeats(3, "seat:red", refused, None), Vec::<u64>::new());
    assert_eq!(repeats(1, "seat:blue", refused, Some(0)), [2]);
    assert_eq!(
        repeats(1, "seat:blue", REFUSALS_NOT_KEPT_CODE, None),
        [1 + 3]
    );
}

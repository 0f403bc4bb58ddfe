//! Migrations that bring rows of an older schema forward.

use umpire_storage::testing::patient_pool;
use umpire_storage::EventStore;
use uuid::Uuid;

/// V6 scopes idempotency keys by actor: a key stored before it belongs to
/// the actor of the first event its answer names, and one whose answer
/// names no event belongs to no actor (`unattributed`).
#[tokio::test]
async fn v6_gives_each_stored_idempotency_key_the_actor_of_its_events() {
    let database = umpire_storage::testing::database_migrated_up_to(5).await;
    let (owner, connection) = tokio_postgres::connect(&database.owner_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let game_id = Uuid::new_v4();
    owner
        .batch_execute(&format!(
            "INSERT INTO games (game_id, game, options, seed, rules_version)
               VALUES ('{game_id}', 'arboretum', '{{}}', 1, 1);
             INSERT INTO events (game_id, seq, event_type, payload, actor, action, decided_at,
                                 rules_version, recorded_at, prev_hash, hash)
               VALUES ('{game_id}', 1, 'bid', '{{}}', 'seat:blue', '{{}}', 0, 1, now(), 'a', 'b'),
                      ('{game_id}', 2, 'bid', '{{}}', 'seat:red', '{{}}', 1, 1, now(), 'b', 'c'),
                      ('{game_id}', 3, 'revealed', '{{}}', 'seat:red', '{{}}', 1, 1, now(), 'c', 'd');
             INSERT INTO idempotency_keys (game_id, idempotency_key, request_hash, response)
               VALUES ('{game_id}', 'blue-1', 'h1', '{{\"first_seq\": 1, \"version\": 1}}'),
                      ('{game_id}', 'red-1', 'h2', '{{\"first_seq\": 2, \"version\": 3}}'),
                      ('{game_id}', 'nothing', 'h3', '{{\"first_seq\": 4, \"version\": 3}}');"
        ))
        .await
        .unwrap();

    umpire_storage::migrate(&database.owner_url).await.unwrap();

    let store = EventStore::new(patient_pool(&database.service_url, 2));
    let found = |actor: &'static str, key: &'static str| {
        let store = store.clone();
        async move {
            store
                .idempotent_response(game_id, actor, key)
                .await
                .unwrap()
                .map(|(hash, answer)| (hash, answer.first_seq))
        }
    };
    assert_eq!(found("seat:blue", "blue-1").await, Some(("h1".into(), 1)));
    assert_eq!(found("seat:red", "red-1").await, Some(("h2".into(), 2)));
    assert_eq!(found("seat:red", "blue-1").await, None);
    assert_eq!(found("seat:blue", "red-1").await, None);
    for actor in ["seat:blue", "seat:red", "umpire"] {
        assert_eq!(found(actor, "nothing").await, None, "{actor}");
    }
    let unattributed: String = owner
        .query_one(
            "SELECT actor FROM idempotency_keys WHERE idempotency_key = 'nothing'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(unattributed, "unattributed");
}

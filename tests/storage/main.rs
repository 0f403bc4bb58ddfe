//! The event store against real PostgreSQL: one private cluster for this test
//! binary, a fresh database per test.

use serde_json::json;
use umpire_domain::record::verify_chain;
use umpire_domain::record::RecordedRejection;
use umpire_domain::{Actor, RecordedEvent};
use umpire_storage::testing::patient_pool;
use umpire_storage::{
    hash_token, AppendOutcome, EventStore, Head, IdempotentAnswer, IdempotentRequest, NewEvent,
    NewGame, NewToken, StoreError,
};
use uuid::Uuid;

mod distributable;
mod group_commit;
mod invitations;
mod listing;
mod migrations;
mod pools;
mod refusals;
mod roles;

/// A store on a fresh database, its pool logged in as the service role; and
/// the database's URL as the owner.
async fn fresh_store() -> (EventStore, String) {
    let database = umpire_storage::testing::fresh_database().await;
    let pool = patient_pool(&database.service_url, 8);
    (EventStore::new(pool), database.owner_url)
}

fn event(n: u32) -> NewEvent {
    NewEvent {
        event_type: "thing_happened".into(),
        payload: json!({"type": "thing_happened", "n": n}),
        actor: "seat:red".into(),
        action: json!({"type": "do", "n": n}).into(),
        rules_version: 1,
    }
}

async fn new_game(store: &EventStore) -> Uuid {
    let game_id = Uuid::new_v4();
    store
        .create_game(NewGame {
            game_id,
            game: "arboretum".into(),
            options: json!({"dm_advantage": "red"}),
            seed: 42,
            rules_version: 1,
            setup_events: vec![NewEvent {
                action: serde_json::Value::Null.into(),
                actor: "system".into(),
                ..event(0)
            }],
            tokens: vec![
                NewToken {
                    token_hash: hash_token("umpire-secret"),
                    grant: Actor::Umpire,
                },
                NewToken {
                    token_hash: hash_token("red-secret"),
                    grant: Actor::Seat("red".into()),
                },
            ],
        })
        .await
        .expect("create game");
    game_id
}

fn db_message(error: &tokio_postgres::Error) -> String {
    error
        .as_db_error()
        .map(|e| e.message().to_string())
        .unwrap_or_else(|| error.to_string())
}

/// Runs each statement as the database owner, connected directly (not as
/// the service's role), and asserts the database refuses it with a message
/// containing one of `words`.
async fn assert_the_owner_is_refused(url: &str, statements: &[String], words: &[&str]) {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    for statement in statements {
        let error = client.batch_execute(statement).await.unwrap_err();
        let message = db_message(&error);
        assert!(
            words.iter().any(|word| message.contains(word)),
            "{statement}: {message}"
        );
    }
}

fn appended(outcome: AppendOutcome) -> Vec<RecordedEvent> {
    match outcome {
        AppendOutcome::Appended { events, .. } => events,
        AppendOutcome::Replayed(_) => panic!("expected a fresh append"),
    }
}

/// Appends at the head the store has now.
async fn append_now(
    store: &EventStore,
    game_id: Uuid,
    events: Vec<NewEvent>,
    idempotency: Option<&IdempotentRequest>,
) -> Result<AppendOutcome, StoreError> {
    let head = store.head(game_id).await?;
    store.append_at_head(&head, events, idempotency).await
}

#[tokio::test]
async fn appended_events_read_back_in_order_with_a_valid_chain() {
    let (store, _) = fresh_store().await;
    let game_id = new_game(&store).await;
    let stored = appended(
        append_now(&store, game_id, vec![event(1), event(2)], None)
            .await
            .unwrap(),
    );
    assert_eq!(stored.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![2, 3]);
    let read = store.read_events(game_id, 0, None, None).await.unwrap();
    assert_eq!(read.len(), 3);
    assert_eq!(read[1..], stored[..]);
    assert_eq!(verify_chain(&game_id.to_string(), &read), Ok(()));
    assert_eq!(store.version(game_id).await.unwrap(), 3);
    let page = store.read_events(game_id, 1, None, Some(1)).await.unwrap();
    assert_eq!(page.len(), 1);
    assert_eq!(page[0].seq, 2);
}

/// The service decides on a fold and appends at the head that fold ended
/// with; when another instance appended first, that head is stale.
#[tokio::test]
async fn an_append_at_a_stale_head_is_a_conflict_and_writes_nothing() {
    let (store, _) = fresh_store().await;
    let game_id = new_game(&store).await;
    let (_, head) = store.read_after(&Head::start(game_id)).await.unwrap();
    assert_eq!(head.version(), 1);
    let won = store
        .append_at_head(&head, vec![event(1)], None)
        .await
        .unwrap();
    let AppendOutcome::Appended { head: after, .. } = won else {
        panic!("a fresh append");
    };
    assert_eq!(after.version(), 2);
    let error = store
        .append_at_head(&head, vec![event(2)], None)
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::Conflict {
                expected: 1,
                actual: 2
            }
        ),
        "{error:?}"
    );
    assert_eq!(store.version(game_id).await.unwrap(), 2);
    // The head the winning append returned is the one to go on from.
    appended(
        store
            .append_at_head(&after, vec![event(3)], None)
            .await
            .unwrap(),
    );
    let events = store.read_events(game_id, 0, None, None).await.unwrap();
    assert_eq!(verify_chain(&game_id.to_string(), &events), Ok(()));
}

/// Heads are made only by the store (a made-up one does not compile: see
/// the `compile_fail` example on `Head`), so the only heads a caller can
/// try are real ones: the start of a log, or heads that are out of date,
/// including another game's. None writes a gap, a second event at a taken
/// number or a wrong link.
#[tokio::test]
async fn no_head_a_caller_can_hold_writes_a_gap_or_a_wrong_link() {
    let (store, _) = fresh_store().await;
    let game_id = new_game(&store).await;
    let other_game = new_game(&store).await;
    let start = Head::start(game_id);
    let (_, at_one) = store.read_after(&start).await.unwrap();
    appended(
        store
            .append_at_head(&at_one, vec![event(1), event(2)], None)
            .await
            .unwrap(),
    );
    let (_, other_head) = store.read_after(&Head::start(other_game)).await.unwrap();
    for (name, head) in [("the start", &start), ("a stale head", &at_one)] {
        let error = store
            .append_at_head(head, vec![event(9)], None)
            .await
            .unwrap_err();
        assert!(
            matches!(error, StoreError::Conflict { actual: 3, .. }),
            "{name}: {error:?}"
        );
    }
    // Another game's head extends that game, never this one.
    appended(
        store
            .append_at_head(&other_head, vec![event(7)], None)
            .await
            .unwrap(),
    );
    let events = store.read_events(game_id, 0, None, None).await.unwrap();
    assert_eq!(events.len(), 3);
    assert_eq!(verify_chain(&game_id.to_string(), &events), Ok(()));
    let others = store.read_events(other_game, 0, None, None).await.unwrap();
    assert_eq!(others.len(), 2);
    assert_eq!(verify_chain(&other_game.to_string(), &others), Ok(()));
}

#[tokio::test]
async fn racing_appends_never_lose_or_duplicate_an_event() {
    let (store, _) = fresh_store().await;
    let game_id = new_game(&store).await;
    let mut handles = Vec::new();
    for writer in 0..8u32 {
        let store = store.clone();
        handles.push(tokio::spawn(async move {
            let mut won = 0;
            for attempt in 0..10u32 {
                loop {
                    let head = store.head(game_id).await.unwrap();
                    match store
                        .append_at_head(&head, vec![event(writer * 100 + attempt)], None)
                        .await
                    {
                        Ok(_) => {
                            won += 1;
                            break;
                        }
                        Err(StoreError::Conflict { .. }) => continue,
                        Err(other) => panic!("{other:?}"),
                    }
                }
            }
            won
        }));
    }
    let mut total = 0;
    for handle in handles {
        total += handle.await.unwrap();
    }
    assert_eq!(total, 80);
    let events = store.read_events(game_id, 0, None, None).await.unwrap();
    assert_eq!(events.len(), 81);
    assert_eq!(verify_chain(&game_id.to_string(), &events), Ok(()));
    let mut payloads: Vec<u64> = events[1..]
        .iter()
        .map(|e| e.payload["n"].as_u64().unwrap())
        .collect();
    payloads.sort();
    payloads.dedup();
    assert_eq!(payloads.len(), 80, "every acknowledged event exactly once");
}

#[tokio::test]
async fn events_cannot_be_appended_to_a_game_that_does_not_exist() {
    let (store, _) = fresh_store().await;
    let nowhere = uuid::Uuid::new_v4();
    for idempotency in [
        None,
        Some(IdempotentRequest {
            actor: "seat:red".into(),
            key: "k".into(),
            request_hash: "h".into(),
            answer: IdempotentAnswer {
                first_seq: 1,
                version: 1,
            },
        }),
    ] {
        let error = store
            .append_at_head(&Head::start(nowhere), vec![event(1)], idempotency.as_ref())
            .await
            .unwrap_err();
        assert!(
            matches!(error, StoreError::GameNotFound(id) if id == nowhere),
            "{error:?}"
        );
    }
    assert_eq!(store.version(nowhere).await.unwrap(), 0);
}

#[tokio::test]
async fn the_database_refuses_to_change_or_remove_a_game() {
    let (store, url) = fresh_store().await;
    let game_id = new_game(&store).await;
    // TRUNCATE … CASCADE reaches events too, whose trigger may answer first.
    assert_the_owner_is_refused(
        &url,
        &[
            format!("UPDATE games SET seed = 0 WHERE game_id = '{game_id}'"),
            format!("DELETE FROM games WHERE game_id = '{game_id}'"),
            "TRUNCATE games CASCADE".to_string(),
        ],
        &["immutable", "append-only"],
    )
    .await;
    assert!(store.game(game_id).await.is_ok());
    assert_eq!(store.version(game_id).await.unwrap(), 1);
}

#[tokio::test]
async fn the_database_refuses_to_update_delete_or_truncate_events() {
    let (store, url) = fresh_store().await;
    let game_id = new_game(&store).await;
    // Even the owner, connected directly, cannot rewrite history.
    assert_the_owner_is_refused(
        &url,
        &[
            format!("UPDATE events SET payload = '{{}}' WHERE game_id = '{game_id}'"),
            format!("DELETE FROM events WHERE game_id = '{game_id}'"),
            "TRUNCATE events CASCADE".to_string(),
        ],
        &["append-only"],
    )
    .await;
    // And the pool's role has no UPDATE privilege at all.
    let pooled = store.pool().get().await.unwrap();
    let error = pooled
        .batch_execute(&format!(
            "UPDATE events SET actor = 'x' WHERE game_id = '{game_id}'"
        ))
        .await
        .unwrap_err();
    let message = db_message(&error);
    assert!(message.contains("permission denied"), "{message}");
    assert_eq!(store.version(game_id).await.unwrap(), 1);
}

#[tokio::test]
async fn an_idempotency_key_returns_the_first_response_and_refuses_a_different_body() {
    let (store, _) = fresh_store().await;
    let game_id = new_game(&store).await;
    let request = IdempotentRequest {
        actor: "seat:red".into(),
        key: "k1".into(),
        request_hash: "hash-a".into(),
        answer: IdempotentAnswer {
            first_seq: 2,
            version: 2,
        },
    };
    appended(
        append_now(&store, game_id, vec![event(1)], Some(&request))
            .await
            .unwrap(),
    );
    match append_now(&store, game_id, vec![event(1)], Some(&request))
        .await
        .unwrap()
    {
        AppendOutcome::Replayed(answer) => assert_eq!(answer, request.answer),
        AppendOutcome::Appended { .. } => panic!("the key was seen before"),
    }
    let different = IdempotentRequest {
        request_hash: "hash-b".into(),
        ..request
    };
    let error = append_now(&store, game_id, vec![event(9)], Some(&different))
        .await
        .unwrap_err();
    assert!(
        matches!(error, StoreError::IdempotencyKeyReused),
        "{error:?}"
    );
    assert_eq!(store.version(game_id).await.unwrap(), 2);
}

#[tokio::test]
async fn an_idempotency_key_belongs_to_its_actor_and_is_not_shared_with_another() {
    let (store, _) = fresh_store().await;
    let game_id = new_game(&store).await;
    let keyed = |actor: &str, hash: &str, seq: u64| IdempotentRequest {
        actor: actor.into(),
        key: "bid-round-1".into(),
        request_hash: hash.into(),
        answer: IdempotentAnswer {
            first_seq: seq,
            version: seq,
        },
    };
    let blue = keyed("seat:blue", "blue's bid", 2);
    let red = keyed("seat:red", "red's bid", 3);
    appended(
        append_now(&store, game_id, vec![event(1)], Some(&blue))
            .await
            .unwrap(),
    );
    // Red's request under blue's key is red's own: appended, not refused.
    appended(
        append_now(&store, game_id, vec![event(2)], Some(&red))
            .await
            .unwrap(),
    );
    assert_eq!(store.version(game_id).await.unwrap(), 3);
    for (request, hash) in [(&blue, "blue's bid"), (&red, "red's bid")] {
        let (stored_hash, answer) = store
            .idempotent_response(game_id, &request.actor, &request.key)
            .await
            .unwrap()
            .expect("stored under its actor");
        assert_eq!((stored_hash.as_str(), answer), (hash, request.answer));
    }
    assert_eq!(
        store
            .idempotent_response(game_id, "umpire", "bid-round-1")
            .await
            .unwrap(),
        None,
        "a third actor sees no key"
    );
}

#[tokio::test]
async fn tokens_are_stored_hashed_and_resolve_to_their_role() {
    let (store, url) = fresh_store().await;
    let game_id = new_game(&store).await;
    assert_eq!(
        store
            .token_grant(game_id, &hash_token("red-secret"))
            .await
            .unwrap()
            .map(|grant| grant.actor),
        Some(Actor::Seat("red".into()))
    );
    assert_eq!(
        store
            .token_grant(game_id, &hash_token("umpire-secret"))
            .await
            .unwrap()
            .map(|grant| grant.actor),
        Some(Actor::Umpire)
    );
    assert_eq!(
        store
            .token_grant(game_id, &hash_token("nope"))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .token_grant(Uuid::new_v4(), &hash_token("red-secret"))
            .await
            .unwrap(),
        None
    );
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let dump: String = client
        .query_one("SELECT string_agg(token_hash, ',') FROM tokens", &[])
        .await
        .unwrap()
        .get(0);
    assert!(!dump.contains("red-secret"));
}

#[tokio::test]
async fn rejections_are_recorded_outside_the_stream() {
    let (store, _) = fresh_store().await;
    let game_id = new_game(&store).await;
    store
        .record_rejection(
            game_id,
            &RecordedRejection {
                at_version: 1,
                actor: "seat:red".into(),
                action: json!({"type": "plant"}),
                code: "arboretum.cell_occupied".into(),
                message: "D5 is taken.".into(),
                rule: Some("arboretum §4".into()),
                rules_version: 1,
                recorded_at: String::new(),
                repeats: 1,
            },
        )
        .await
        .unwrap();
    let rejections = store.rejections(game_id).await.unwrap();
    assert_eq!(rejections.len(), 1);
    assert_eq!(rejections[0].code, "arboretum.cell_occupied");
    assert_eq!(store.version(game_id).await.unwrap(), 1);
}

#[tokio::test]
async fn an_unknown_game_is_not_found() {
    let (store, _) = fresh_store().await;
    let error = store.game(Uuid::new_v4()).await.unwrap_err();
    assert!(matches!(error, StoreError::GameNotFound(_)));
}

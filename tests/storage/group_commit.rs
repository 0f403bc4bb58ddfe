//! Group commit: appends arriving together share one statement, and one
//! refused append never costs the others theirs.

use std::sync::{Arc, Mutex};

use futures_util::future::join_all;
use umpire_domain::record::verify_chain;
use umpire_storage::testing::patient_pool;
use umpire_storage::{AppendOutcome, Head, IdempotentAnswer};
use umpire_storage::{EventStore, GroupCommitLimits, IdempotentRequest, NewEvent, StoreError};
use uuid::Uuid;

use super::{event, new_game};

/// A store with one writer, so that every append queued before the test
/// task yields is written in the same statement; and the batch sizes it
/// wrote.
async fn store_with_one_writer() -> (EventStore, Arc<Mutex<Vec<usize>>>) {
    let url = umpire_storage::testing::fresh_database_url().await;
    let pool = patient_pool(&url, 8);
    let mut store = EventStore::with_group_commit(
        pool,
        GroupCommitLimits {
            writers: 1,
            batch: 64,
        },
    );
    let batches = Arc::new(Mutex::new(Vec::new()));
    let seen = batches.clone();
    store.observe_batches(Arc::new(move |size, _| seen.lock().unwrap().push(size)));
    (store, batches)
}

/// One append in a wave: where it goes and what it should come to.
#[derive(Clone)]
struct Given {
    game: Target,
    /// Appended at the game's head minus this many events (stale when > 0).
    behind: u64,
    idempotency: Option<(&'static str, &'static str)>,
    then: Expect,
}

#[derive(Clone, Copy, PartialEq)]
enum Target {
    /// The n-th game of the test, created beforehand.
    Game(usize),
    Unknown,
}

#[derive(Debug, Clone, PartialEq)]
enum Expect {
    Appended,
    Replayed,
    Conflict,
    NotFound,
    KeyReused,
}

fn good(game: usize) -> Given {
    Given {
        game: Target::Game(game),
        behind: 0,
        idempotency: None,
        then: Expect::Appended,
    }
}

/// Sends every append of `wave` at once (all queued before any is written)
/// and checks each outcome and every game's log afterwards.
async fn when_sent_together(store: &EventStore, games: &[Uuid], wave: Vec<Given>) {
    let mut before = Vec::new();
    for game in games {
        before.push(store.read_events(*game, 0, None, None).await.unwrap());
    }
    let mut sends = Vec::new();
    for (index, given) in wave.iter().enumerate() {
        let head = match given.game {
            Target::Game(n) => {
                let at = before[n].len() as u64 - given.behind;
                store.head_at(games[n], at).await.unwrap()
            }
            Target::Unknown => Head::start(Uuid::new_v4()),
        };
        let idempotency = given.idempotency.map(|(key, hash)| IdempotentRequest {
            actor: "seat:red".into(),
            key: key.into(),
            request_hash: hash.into(),
            answer: IdempotentAnswer {
                first_seq: index as u64,
                version: index as u64,
            },
        });
        let events: Vec<NewEvent> = vec![event(1000 + index as u32), event(2000 + index as u32)];
        sends.push(async move {
            store
                .append_at_head(&head, events, idempotency.as_ref())
                .await
        });
    }
    let outcomes = join_all(sends).await;
    let mut written = vec![0usize; games.len()];
    for ((index, given), outcome) in wave.iter().enumerate().zip(outcomes) {
        let got = match &outcome {
            Ok(AppendOutcome::Appended { events, .. }) => {
                if let Target::Game(n) = given.game {
                    written[n] += events.len();
                }
                Expect::Appended
            }
            Ok(AppendOutcome::Replayed(_)) => Expect::Replayed,
            Err(StoreError::Conflict { .. }) => Expect::Conflict,
            Err(StoreError::GameNotFound(_)) => Expect::NotFound,
            Err(StoreError::IdempotencyKeyReused) => Expect::KeyReused,
            Err(other) => panic!("append {index}: unexpected {other:?}"),
        };
        assert_eq!(got, given.then, "append {index}: {outcome:?}");
    }
    for (n, game) in games.iter().enumerate() {
        let after = store.read_events(*game, 0, None, None).await.unwrap();
        assert_eq!(after.len(), before[n].len() + written[n], "game {n}'s log");
        assert_eq!(
            after[..before[n].len()],
            before[n][..],
            "game {n}'s history"
        );
        assert_eq!(verify_chain(&game.to_string(), &after), Ok(()), "game {n}");
    }
}

async fn games(store: &EventStore, count: usize) -> Vec<Uuid> {
    let mut games = Vec::new();
    for _ in 0..count {
        games.push(new_game(store).await);
    }
    games
}

#[tokio::test]
async fn appends_to_different_games_sent_together_share_one_statement() {
    let (store, batches) = store_with_one_writer().await;
    let games = games(&store, 6).await;
    when_sent_together(&store, &games, (0..6).map(good).collect()).await;
    assert_eq!(*batches.lock().unwrap(), vec![6]);
}

#[tokio::test]
async fn a_refused_append_does_not_cost_the_others_in_its_statement() {
    let cases: Vec<(&str, Given)> = vec![
        (
            "stale version",
            Given {
                behind: 1,
                then: Expect::Conflict,
                ..good(0)
            },
        ),
        (
            "unknown game",
            Given {
                game: Target::Unknown,
                then: Expect::NotFound,
                ..good(0)
            },
        ),
        (
            "unknown game with a key",
            Given {
                game: Target::Unknown,
                idempotency: Some(("k", "h")),
                then: Expect::NotFound,
                ..good(0)
            },
        ),
        (
            "key reused for another request",
            Given {
                idempotency: Some(("used", "other request")),
                then: Expect::KeyReused,
                ..good(0)
            },
        ),
        (
            "key repeated with its request",
            Given {
                idempotency: Some(("used", "first request")),
                then: Expect::Replayed,
                ..good(0)
            },
        ),
    ];
    // With a keyed append beside it the batch is written by the statement
    // that stores keys and results; without, by the one for events alone.
    let cases = cases
        .into_iter()
        .flat_map(|(name, refused)| [(name, refused.clone(), true), (name, refused, false)]);
    for (name, refused, keyed_beside) in cases {
        let (store, batches) = store_with_one_writer().await;
        let games = games(&store, 4).await;
        // Game 0 has had one keyed append already.
        when_sent_together(
            &store,
            &games,
            vec![Given {
                idempotency: Some(("used", "first request")),
                ..good(0)
            }],
        )
        .await;
        // Game 2's append carries a key: a refused statement must not have
        // stored it either.
        let beside = match keyed_beside {
            true => Given {
                idempotency: Some(("fresh", "its request")),
                ..good(2)
            },
            false => good(2),
        };
        when_sent_together(&store, &games, vec![good(1), refused, beside, good(3)]).await;
        assert_eq!(*batches.lock().unwrap(), vec![1, 4], "{name}");
    }
}

#[tokio::test]
async fn two_appends_to_one_game_sent_together_are_written_apart() {
    let (store, batches) = store_with_one_writer().await;
    let games = games(&store, 2).await;
    // Both decided on the same head: the first wins, the second is a
    // conflict, and neither sinks game 1's append.
    let loser = Given {
        then: Expect::Conflict,
        ..good(0)
    };
    when_sent_together(&store, &games, vec![good(0), loser, good(1)]).await;
    assert_eq!(*batches.lock().unwrap(), vec![2, 1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_writers_on_many_games_lose_and_duplicate_nothing() {
    let url = umpire_storage::testing::fresh_database_url().await;
    let store = EventStore::new(patient_pool(&url, 8));
    let games = games(&store, 12).await;
    let mut tasks = Vec::new();
    for (n, game_id) in games.iter().copied().enumerate() {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..15u32 {
                let head = store.head(game_id).await.unwrap();
                let outcome = store
                    .append_at_head(&head, vec![event(n as u32 * 100 + i)], None)
                    .await;
                assert!(
                    matches!(outcome, Ok(AppendOutcome::Appended { .. })),
                    "{outcome:?}"
                );
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    for (n, game_id) in games.iter().enumerate() {
        let events = store.read_events(*game_id, 0, None, None).await.unwrap();
        assert_eq!(events.len(), 16);
        assert_eq!(verify_chain(&game_id.to_string(), &events), Ok(()));
        let numbers: Vec<u64> = events[1..]
            .iter()
            .map(|e| e.payload["n"].as_u64().unwrap())
            .collect();
        let expected: Vec<u64> = (0..15).map(|i| n as u64 * 100 + i).collect();
        assert_eq!(numbers, expected, "game {n}: every append once, in order");
    }
}

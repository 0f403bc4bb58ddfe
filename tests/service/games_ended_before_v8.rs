//! Games stored before migrations/V8 are listed finished exactly when their
//! rules say they are: V8 finds them by each of today's games' ending
//! events, held here to the games' own fold on random games of every game,
//! whole (finished) and cut before each of their last three decisions.

use std::collections::BTreeSet;

use umpire_archive::{replay, Archive};
use umpire_storage::testing::patient_pool;
use umpire_storage::{EventStore, GameListFilter};
use uuid::Uuid;

use crate::archive_support::{registry, simulated, GAMES};

/// `archive` up to (without) the decision made at `decided_at`, as another game.
fn cut_before(archive: &Archive, decided_at: u64) -> Archive {
    let mut cut = archive.clone();
    cut.game_id = Uuid::new_v4();
    cut.events.retain(|event| event.decided_at < decided_at);
    cut.rejections.clear();
    cut
}

async fn store_raw(owner: &tokio_postgres::Client, archive: &Archive) {
    let created_at = chrono::DateTime::parse_from_rfc3339(&archive.created_at).unwrap();
    owner
        .execute(
            "INSERT INTO games (game_id, game, options, seed, rules_version, created_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &archive.game_id,
                &archive.game,
                &archive.options,
                &(archive.seed as i64),
                &(archive.rules_version as i32),
                &created_at,
            ],
        )
        .await
        .unwrap();
    for event in &archive.events {
        let recorded_at = chrono::DateTime::parse_from_rfc3339(&event.recorded_at).unwrap();
        let action = (!event.action.is_null()).then_some(event.action.as_ref());
        owner
            .execute(
                "INSERT INTO events (game_id, seq, event_type, payload, actor, action, decided_at,
                                     rules_version, recorded_at, prev_hash, hash)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                &[
                    &archive.game_id,
                    &(event.seq as i64),
                    &event.event_type,
                    &event.payload,
                    &event.actor,
                    &action,
                    &(event.decided_at as i64),
                    &(event.rules_version as i32),
                    &recorded_at,
                    &event.prev_hash,
                    &event.hash,
                ],
            )
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn v8_lists_a_game_stored_before_it_finished_exactly_when_its_rules_say_so() {
    let database = umpire_storage::testing::database_migrated_up_to(7).await;
    let (owner, connection) = tokio_postgres::connect(&database.owner_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let registry = registry();
    let (mut finished, mut in_progress) = (BTreeSet::new(), BTreeSet::new());
    for game in GAMES {
        for index in 0..3 {
            let whole = simulated(game, index);
            let mut decisions: Vec<u64> = whole.events.iter().map(|e| e.decided_at).collect();
            decisions.dedup();
            let cuts = decisions
                .iter()
                .rev()
                .take(3)
                .map(|&at| cut_before(&whole, at));
            for archive in std::iter::once(whole.clone()).chain(cuts) {
                let ended = replay(&registry, &archive, |_| {})
                    .unwrap()
                    .game
                    .state
                    .status()
                    .finished;
                store_raw(&owner, &archive).await;
                if ended {
                    finished.insert(archive.game_id);
                } else {
                    in_progress.insert(archive.game_id);
                }
            }
        }
    }
    assert!(finished.len() >= GAMES.len() * 3, "every whole game ends");

    umpire_storage::migrate(&database.owner_url).await.unwrap();

    let store = EventStore::new(patient_pool(&database.service_url, 2));
    let listed = |finished: bool| {
        let store = store.clone();
        async move {
            let filter = GameListFilter {
                game: None,
                finished: Some(finished),
            };
            let page = store.list_games(filter, None, 200).await.unwrap();
            assert_eq!(page.next, None);
            assert!(page
                .games
                .iter()
                .all(|game| game.finished == finished && game.winners.is_none()));
            page.games
                .iter()
                .map(|game| game.game_id)
                .collect::<BTreeSet<_>>()
        }
    };
    assert_eq!(listed(true).await, finished);
    assert_eq!(listed(false).await, in_progress);
}

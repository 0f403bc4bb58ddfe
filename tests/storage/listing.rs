//! The list of games (migrations/V8): newest first, by game and by status,
//! a keyset page at a time; a game is finished once an append or an import
//! told the store its result.

use std::sync::Arc;

use chrono::{Duration, Utc};
use serde_json::json;
use umpire_domain::record::format_recorded_at;
use umpire_domain::RecordedEvent;
use umpire_storage::{
    EventStore, GameListFilter, GamePage, GameRecord, GameResult, ImportGame, ListCursor,
    GAMES_EXAMINED_PER_PAGE,
};
use uuid::Uuid;

use crate::{assert_the_owner_is_refused, event, fresh_store, new_game};

fn ids(page: &GamePage) -> Vec<Uuid> {
    page.games.iter().map(|game| game.game_id).collect()
}

/// Every game `filter` lets through, page after page of `limit`, and the
/// number of pages read.
async fn walk(store: &EventStore, filter: GameListFilter<'_>, limit: usize) -> (Vec<Uuid>, usize) {
    let (mut listed, mut pages, mut after) = (Vec::new(), 0, None::<ListCursor>);
    loop {
        let page = store
            .list_games(filter, after.as_ref(), limit)
            .await
            .unwrap();
        assert!(page.games.len() <= limit);
        listed.extend(ids(&page));
        pages += 1;
        match page.next {
            Some(next) => after = Some(next),
            None => return (listed, pages),
        }
    }
}

const IN_PROGRESS: GameListFilter<'static> = GameListFilter {
    game: None,
    finished: Some(false),
};
const FINISHED: GameListFilter<'static> = GameListFilter {
    game: None,
    finished: Some(true),
};

#[tokio::test]
async fn games_are_listed_newest_first_and_an_append_that_ends_one_lists_it_finished() {
    let (store, _) = fresh_store().await;
    let mut created = Vec::new();
    for _ in 0..3 {
        created.push(new_game(&store).await);
    }
    let mut newest_first = Vec::new();
    for id in &created {
        newest_first.push((store.game(*id).await.unwrap().created_at, *id));
    }
    newest_first.sort_by(|a, b| b.cmp(a));
    let newest_first: Vec<Uuid> = newest_first.into_iter().map(|(_, id)| id).collect();

    let first = store
        .list_games(GameListFilter::default(), None, 2)
        .await
        .unwrap();
    assert_eq!(ids(&first), newest_first[..2]);
    let second = store
        .list_games(GameListFilter::default(), first.next.as_ref(), 2)
        .await
        .unwrap();
    assert_eq!(ids(&second), newest_first[2..]);
    assert_eq!(second.next, None, "a page short of the limit is the last");
    // A full last page is known to be the last, too.
    let whole = store
        .list_games(GameListFilter::default(), None, 3)
        .await
        .unwrap();
    assert_eq!((ids(&whole), whole.next), (newest_first.clone(), None));
    assert!(whole.games.iter().all(|game| game.version == 1
        && !game.finished
        && game.winners.is_none()
        && game.last_event_at.is_some()
        && game.game == "arboretum"));

    let (ending, going_on) = (newest_first[1], newest_first[2]);
    let head = store.head(ending).await.unwrap();
    let result = GameResult {
        winners: vec!["red".into()],
    };
    store
        .append_at_head_with_result(&head, vec![event(1)], None, Some(&result))
        .await
        .unwrap();
    let head = store.head(going_on).await.unwrap();
    store
        .append_at_head(&head, vec![event(1), event(2)], None)
        .await
        .unwrap();

    let finished = store.list_games(FINISHED, None, 10).await.unwrap();
    assert_eq!(ids(&finished), [ending]);
    assert_eq!(finished.games[0].winners, Some(vec!["red".to_string()]));
    assert!(finished.games[0].finished);
    assert_eq!(finished.games[0].version, 2);
    let in_progress = store.list_games(IN_PROGRESS, None, 10).await.unwrap();
    assert_eq!(ids(&in_progress), [newest_first[0], going_on]);
    assert_eq!(in_progress.games[1].version, 3);
    let everything = store
        .list_games(GameListFilter::default(), None, 10)
        .await
        .unwrap();
    assert_eq!(ids(&everything), newest_first);

    for (game, expected) in [("arboretum", 3), ("treeblox", 0)] {
        let filter = GameListFilter {
            game: Some(game),
            finished: None,
        };
        assert_eq!(walk(&store, filter, 2).await.0.len(), expected, "{game}");
    }
    let finished_arboretum = GameListFilter {
        game: Some("arboretum"),
        finished: Some(true),
    };
    assert_eq!(walk(&store, finished_arboretum, 2).await.0, [ending]);
}

/// A finished game of one event, created `minutes` after now, to import.
fn finished_game(minutes: i64) -> (GameRecord, Vec<RecordedEvent>) {
    let created_at = Utc::now() + Duration::minutes(minutes);
    let record = GameRecord {
        game_id: Uuid::new_v4(),
        game: "treeblox".into(),
        options: json!(null),
        seed: 1,
        rules_version: 1,
        created_at,
    };
    let event = RecordedEvent {
        seq: 1,
        event_type: "game_ended".into(),
        payload: json!({"type": "game_ended"}),
        actor: "system".into(),
        action: Arc::new(serde_json::Value::Null),
        decided_at: 0,
        rules_version: 1,
        recorded_at: format_recorded_at(&created_at),
        prev_hash: "a".into(),
        hash: "b".into(),
        encoded: Default::default(),
    };
    (record, vec![event])
}

/// Games in progress are the games without a result, which no index holds:
/// a page of them walks at most `GAMES_EXAMINED_PER_PAGE` games, and says
/// where to go on when it found too few.
#[tokio::test]
async fn imported_finished_games_are_listed_finished_and_a_page_in_progress_is_bounded() {
    let (store, owner_url) = fresh_store().await;
    let oldest_in_progress = new_game(&store).await;
    let finished: Vec<_> = (1..=GAMES_EXAMINED_PER_PAGE as i64 + 5)
        .map(finished_game)
        .collect();
    let imports: Vec<ImportGame<'_>> = finished
        .iter()
        .map(|(record, events)| ImportGame {
            record: record.clone(),
            events,
            rejections: &[],
            tokens: Vec::new(),
            result: Some(GameResult { winners: vec![] }),
        })
        .collect();
    store.import_games(&imports).await.unwrap();
    let newest_in_progress = new_game(&store).await;

    // The imported games were created after both (in the future): the
    // first page examines 1,000 of them and finds nothing in progress.
    let first = store.list_games(IN_PROGRESS, None, 10).await.unwrap();
    assert_eq!(ids(&first), Vec::<Uuid>::new());
    let next = first.next.expect("a page that examined its most goes on");
    let second = store
        .list_games(IN_PROGRESS, Some(&next), 10)
        .await
        .unwrap();
    assert_eq!(ids(&second), [newest_in_progress, oldest_in_progress]);
    assert_eq!(second.next, None);
    let (in_progress, pages) = walk(&store, IN_PROGRESS, 10).await;
    assert_eq!(in_progress, [newest_in_progress, oldest_in_progress]);
    assert_eq!(pages, 2);

    let (listed, pages) = walk(&store, FINISHED, 200).await;
    let mut expected: Vec<_> = finished.iter().map(|(record, _)| record).collect();
    expected.sort_by_key(|record| std::cmp::Reverse((record.created_at, record.game_id)));
    let expected: Vec<Uuid> = expected.into_iter().map(|record| record.game_id).collect();
    assert_eq!(listed, expected, "every finished game once, newest first");
    assert_eq!(pages, expected.len().div_ceil(200));
    let (everything, _) = walk(&store, GameListFilter::default(), 200).await;
    assert_eq!(everything.len(), expected.len() + 2);

    // A result, once written, is the game's for good.
    let finished_id = expected[0];
    assert_the_owner_is_refused(
        &owner_url,
        &[
            format!(
                "UPDATE game_results SET winners = '[\"red\"]' WHERE game_id = '{finished_id}'"
            ),
            format!("DELETE FROM game_results WHERE game_id = '{finished_id}'"),
            "TRUNCATE game_results".to_string(),
        ],
        &["immutable", "permission denied", "refused"],
    )
    .await;
}

//! Import and export against real PostgreSQL.

use futures_util::StreamExt;
use umpire_archive::Archive;
use umpire_domain::record::verify_chain;
use umpire_domain::Actor;
use umpire_service::archives::{export_game, import_archive};
use umpire_service::ServiceError;
use umpire_storage::testing::patient_pool;
use umpire_storage::{EventStore, StoreError};

use crate::archive_support::{first_action_seq, rechain, registry, simulated, GAMES};

async fn fresh_store() -> (EventStore, String) {
    let url = umpire_storage::testing::fresh_database_url().await;
    (EventStore::new(patient_pool(&url, 4)), url)
}

#[tokio::test]
async fn an_imported_archive_exports_unchanged_and_folds_to_the_same_state() {
    let (store, _) = fresh_store().await;
    let registry = registry();
    for game in GAMES {
        let archive = simulated(game, 1);
        let created = import_archive(&store, &registry, archive.clone())
            .await
            .unwrap();
        assert_eq!(created.id, archive.game_id);
        assert_eq!(created.version, archive.version());
        let exported = export_game(&store, archive.game_id).await.unwrap();
        assert_eq!(
            exported.events, archive.events,
            "{game}: events and hashes kept"
        );
        assert_eq!(exported.rejections, archive.rejections, "{game}");
        assert_eq!(exported.seed, archive.seed);
        assert_eq!(exported.options, archive.options);
        // The chain verifies as read back from the store.
        let stored = store
            .read_events(archive.game_id, 0, None, None)
            .await
            .unwrap();
        verify_chain(&archive.game_id.to_string(), &stored).unwrap();
        // And the stored game folds to the state the archive replays to.
        let from_store = registry
            .replay(
                game,
                &exported.options,
                exported.events.iter().map(|e| &e.payload),
            )
            .unwrap();
        let from_archive = umpire_archive::replay(&registry, &archive, |_| {})
            .unwrap()
            .game
            .state;
        let umpire = umpire_domain::Viewer::Umpire;
        assert_eq!(
            from_store.view(&umpire).unwrap(),
            from_archive.view(&umpire).unwrap()
        );
        // The new umpire token works for the game.
        let grant = store
            .token_grant(
                archive.game_id,
                &umpire_storage::hash_token(&created.umpire_token),
            )
            .await
            .unwrap()
            .map(|grant| grant.actor);
        assert_eq!(grant, Some(Actor::Umpire));
    }
}

#[tokio::test]
async fn a_tampered_archive_is_refused_with_the_first_failing_event_and_nothing_is_stored() {
    let (store, _) = fresh_store().await;
    let registry = registry();
    let mut archive = simulated("arboretum", 2);
    let seq = first_action_seq(&archive) + 1;
    archive.events[seq - 1].payload["forged"] = serde_json::json!(true);
    rechain(&mut archive);
    let error = import_archive(&store, &registry, archive.clone())
        .await
        .unwrap_err();
    let body = error.body();
    assert_eq!(body.code, "archive_event_differs");
    assert_eq!(
        body.details.as_ref().map(|d| d["seq"].clone()),
        Some(serde_json::json!(seq))
    );
    assert!(
        body.message.starts_with(&format!("Event {seq} ")),
        "{}",
        body.message
    );
    assert!(matches!(
        store.game(archive.game_id).await,
        Err(StoreError::GameNotFound(_))
    ));
    // The same id imported twice: the second is refused, the first kept.
    let good = simulated("arboretum", 3);
    import_archive(&store, &registry, good.clone())
        .await
        .unwrap();
    let again = import_archive(&store, &registry, good.clone())
        .await
        .unwrap_err();
    assert_eq!(again.body().code, "game_already_exists");
    // A 409, like any other clash with what is stored.
    assert!(matches!(again, ServiceError::AlreadyExists { .. }));
    assert_eq!(store.version(good.game_id).await.unwrap(), good.version());
}

#[tokio::test]
async fn games_stream_out_one_at_a_time_in_game_id_order() {
    let (store, _) = fresh_store().await;
    let registry = registry();
    let mut archives: Vec<Archive> = (0..6)
        .map(|i| simulated(GAMES[i % 4], 10 + i as u64))
        .collect();
    for archive in &archives {
        import_archive(&store, &registry, archive.clone())
            .await
            .unwrap();
    }
    archives.sort_by_key(|a| a.game_id);
    let games: Vec<_> = store
        .stream_games()
        .await
        .unwrap()
        .map(|g| g.unwrap())
        .collect()
        .await;
    assert_eq!(games.len(), archives.len());
    for (game, archive) in games.iter().zip(&archives) {
        assert_eq!(game.game_id, archive.game_id);
        assert_eq!(game.payloads.len(), archive.events.len());
        let payload: serde_json::Value = serde_json::from_str(&game.payloads[0]).unwrap();
        assert_eq!(payload, archive.events[0].payload);
    }
    let whole: Vec<_> = store
        .stream_archives()
        .await
        .unwrap()
        .map(|g| g.unwrap())
        .collect()
        .await;
    for (game, archive) in whole.iter().zip(&archives) {
        assert_eq!(game.events.len(), archive.events.len());
        assert_eq!(
            game.events.last().unwrap().hash,
            archive.events.last().unwrap().hash
        );
        assert_eq!(game.rejections.len(), archive.rejections.len());
    }
}

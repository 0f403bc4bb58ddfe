//! Live streams against real PostgreSQL: what the streams of one game share.

use std::sync::Arc;

use umpire_service::archives::import_archive;
use umpire_service::{GameService, Principal, RenderedEvent};
use umpire_storage::{connect, EventStore};

use crate::archive_support::{registry, simulated};

fn same_renderings(first: &[RenderedEvent], second: &[RenderedEvent]) -> usize {
    first
        .iter()
        .zip(second)
        .filter(|(a, b)| a.seq == b.seq && Arc::ptr_eq(&a.json, &b.json))
        .count()
}

/// Given a finished Flower Fields game followed from the start by two
/// spectators and the umpire, when each reads, then the spectators share
/// one rendering of each event, and the umpire (who sees more) has its own.
#[tokio::test]
async fn the_streams_of_a_game_that_share_a_viewer_share_each_rendering() {
    let url = umpire_storage::testing::fresh_database_url().await;
    let store = EventStore::new(connect(&url, 4).expect("pool"));
    let archive = simulated("flower_fields", 1);
    import_archive(&store, &registry(), archive.clone())
        .await
        .expect("imported");
    let service = GameService::new(store, Arc::new(registry()));
    let mut spectators = Vec::new();
    for _ in 0..2 {
        let follower = service
            .follow(archive.game_id, Principal::Spectator, 0)
            .await
            .expect("followed");
        spectators.push(follower);
    }
    let mut umpire = service
        .follow(archive.game_id, Principal::Umpire, 0)
        .await
        .expect("followed");

    let first = spectators[0].read().await.expect("read").events;
    let second = spectators[1].read().await.expect("read").events;
    let umpires = umpire.read().await.expect("read").events;

    assert!(!first.is_empty());
    assert_eq!(same_renderings(&first, &second), first.len());
    assert_eq!(same_renderings(&first, &umpires), 0);
    assert!(
        first.iter().zip(&umpires).all(|(a, b)| a.json != b.json),
        "the umpire sees the hash chain, the spectators do not"
    );
    let rendered = service.metrics.stream_renders.get();
    assert_eq!(rendered, 2 * first.len() as u64);
    assert_eq!(service.metrics.stream_events.get(), 3 * first.len() as u64);
}

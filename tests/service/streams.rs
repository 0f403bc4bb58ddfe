//! Live streams against real PostgreSQL: what the streams of one game share.

use std::sync::Arc;

use umpire_domain::Viewer;
use umpire_service::archives::import_archive;
use umpire_service::{
    Charge, GameService, LiveLimits, RenderedEvent, ServiceError, ServiceLimits, StreamClient,
};
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
            .follow(archive.game_id, Viewer::Spectator, StreamClient::Unknown, 0)
            .await
            .expect("followed");
        spectators.push(follower);
    }
    let mut umpire = service
        .follow(
            archive.game_id,
            Viewer::Umpire,
            StreamClient::of(archive.game_id, &Viewer::Umpire, None),
            0,
        )
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

async fn service_with(limits: ServiceLimits, game: &str) -> (GameService, uuid::Uuid) {
    let url = umpire_storage::testing::fresh_database_url().await;
    let store = EventStore::new(connect(&url, 4).expect("pool"));
    let archive = simulated(game, 3);
    import_archive(&store, &registry(), archive.clone())
        .await
        .expect("imported");
    (
        GameService::with_limits(store, Arc::new(registry()), limits),
        archive.game_id,
    )
}

/// Given a stream at the head of a long game, when the fold cache lets the
/// game go (another request needs the memory), then the game's log leaves
/// memory: an idle stream holds no log of its own, and still reads on.
#[tokio::test]
async fn an_idle_stream_at_the_head_holds_no_game_log() {
    let (service, game_id) = service_with(ServiceLimits::default(), "flower_fields").await;
    let version = service
        .load(game_id, umpire_service::ReadAt::Newest)
        .await
        .expect("loaded")
        .events()
        .len() as u64;
    let mut follower = service
        .follow(game_id, Viewer::Spectator, StreamClient::Unknown, version)
        .await
        .expect("followed");
    let probe = service.probe_cached_fold(game_id).expect("cached");
    assert!(
        service.budget.charged(Charge::Folds) > 100_000,
        "a long game's log is measured"
    );

    // Exactly the room the folds take: it fits only once they have gone.
    let room = service.budget.chargeable()
        - (service.budget.total() - service.budget.charged(Charge::Folds));
    let body = service
        .reserve_memory(Charge::Bodies, room)
        .expect("the folds give way");
    assert_eq!(service.budget.charged(Charge::Folds), 0);
    assert!(
        !probe.is_in_memory(),
        "the idle stream kept the game's log in memory"
    );
    drop(body);

    let batch = follower.read().await.expect("read");
    assert!(batch.events.is_empty());
    assert_eq!(batch.version, version);
}

/// Given one client at its limit of streams, a second client still gets
/// one, and the first gets another once one of its own ends.
#[tokio::test]
async fn one_client_cannot_take_every_stream_slot() {
    let limits = ServiceLimits {
        live: LiveLimits {
            max_open: 10,
            max_per_client: 2,
            ..LiveLimits::default()
        },
        ..ServiceLimits::default()
    };
    let (service, game_id) = service_with(limits, "arboretum").await;
    let first = StreamClient::Address("192.0.2.1".parse().unwrap());
    let second = StreamClient::Address("192.0.2.2".parse().unwrap());
    let follow =
        |client: &StreamClient| service.follow(game_id, Viewer::Spectator, client.clone(), 0);
    let one = follow(&first).await.expect("first stream");
    let _two = follow(&first).await.expect("second stream");
    match follow(&first).await {
        Err(ServiceError::TooManyStreams { limit: 2 }) => {}
        other => panic!("a third stream of one client: {:?}", other.map(|_| ())),
    }
    let _other = follow(&second)
        .await
        .expect("another client still gets a stream");
    let umpire = StreamClient::of(game_id, &Viewer::Umpire, None);
    let _umpires = service
        .follow(game_id, Viewer::Umpire, umpire, 0)
        .await
        .expect("a token is a client of its own");
    drop(one);
    follow(&first)
        .await
        .expect("a slot given back is the client's again");
    let refused = service
        .metrics
        .streams_refused
        .with_label_values(&["client"])
        .get();
    assert_eq!(refused, 1);
}

/// Given a budget with no room for another stream, a stream is refused
/// `Busy`, and the budget shows every stream open.
#[tokio::test]
async fn a_stream_the_memory_budget_has_no_room_for_is_refused_busy() {
    let limits = ServiceLimits {
        memory_budget: 3 * umpire_service::live::STREAM_BYTES,
        ..ServiceLimits::default()
    };
    let (service, game_id) = service_with(limits, "arboretum").await;
    let mut open = Vec::new();
    let refused = loop {
        match service
            .follow(game_id, Viewer::Spectator, StreamClient::Unknown, 0)
            .await
        {
            Ok(follower) => open.push(follower),
            Err(error) => break error,
        }
        assert!(open.len() <= 3, "more streams than the budget holds");
    };
    assert!(matches!(refused, ServiceError::Busy { .. }), "{refused:?}");
    assert!(!open.is_empty());
    assert_eq!(
        service.budget.charged(Charge::Streams),
        open.len() * umpire_service::live::STREAM_BYTES
    );
    open.clear();
    assert_eq!(service.budget.charged(Charge::Streams), 0);
}

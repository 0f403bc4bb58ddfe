//! Live streams against real PostgreSQL: what the streams of one game share.

use std::sync::Arc;
use std::time::Duration;

use umpire_domain::Viewer;
use umpire_service::archives::import_archive;
use umpire_service::model::{CreateGameRequest, CreatedGame, SubmitActionRequest};
use umpire_service::{
    Charge, Follower, GameService, ReadAt, RenderedEvent, ServiceError, ServiceLimits,
    StreamClient, StreamItem, StreamLimits,
};
use umpire_storage::testing::patient_pool;
use umpire_storage::EventStore;

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
    let (store, game_id) = imported("flower_fields", 1).await;
    let service = GameService::new(store, Arc::new(registry()));
    let mut spectators = Vec::new();
    for _ in 0..2 {
        let follower = service
            .follow(game_id, Viewer::Spectator, StreamClient::Unknown, 0)
            .await
            .expect("followed");
        spectators.push(follower);
    }
    let mut umpire = service
        .follow(
            game_id,
            Viewer::Umpire,
            StreamClient::of(game_id, &Viewer::Umpire, None),
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
        first
            .iter()
            .zip(umpires.iter())
            .all(|(a, b)| a.json != b.json),
        "the umpire sees the hash chain, the spectators do not"
    );
    let rendered = service.metrics.stream_renders.get();
    assert_eq!(rendered, 2 * first.len() as u64);
    assert_eq!(service.metrics.stream_events.get(), 3 * first.len() as u64);
}

/// Reads `follower` to the head, keeping every event it is given.
async fn read_to_the_head(follower: &mut Follower, got: &mut Vec<RenderedEvent>) {
    loop {
        let batch = follower.read().await.expect("read");
        got.extend(batch.events.iter().cloned());
        if batch.version == batch.head {
            return;
        }
    }
}

/// Reads one page of `follower`, keeping its events.
async fn read_a_page(follower: &mut Follower, got: &mut Vec<RenderedEvent>) {
    got.extend(follower.read().await.expect("read").events.iter().cloned());
}

/// Given a long finished game and spectators catching it up from different
/// places, page by page, one after another: when a page's first statuses
/// were kept by a stream ahead (and the rest were not), the stream takes
/// those and folds the rest on from the state that stream kept at their
/// end, or from its own state, or, with neither, from the game's start;
/// then every stream receives exactly what one stream reading the game
/// alone on another instance receives, and the game is folded from its
/// start only where no state near the position was kept.
#[tokio::test]
async fn streams_catching_up_fold_on_from_what_the_streams_ahead_kept() {
    let (store, game_id) = imported("flower_fields", 1).await;
    let follow = |service: &GameService, from: u64| {
        let service = service.clone();
        async move {
            service
                .follow(game_id, Viewer::Spectator, StreamClient::Unknown, from)
                .await
                .expect("followed")
        }
    };
    let alone = GameService::new(store.clone(), Arc::new(registry()));
    let mut reference = Vec::new();
    read_to_the_head(&mut follow(&alone, 0).await, &mut reference).await;
    let version = reference.len() as u64;
    assert!(version > 80, "a long game: {version} events");

    let service = GameService::new(store, Arc::new(registry()));
    let mut got: Vec<Vec<RenderedEvent>> = vec![Vec::new(); 4];
    let mut leader = follow(&service, 0).await;
    read_a_page(&mut leader, &mut got[0]).await;
    read_a_page(&mut leader, &mut got[0]).await; // at 32, its state kept there
    let mut second = follow(&service, 5).await;
    read_a_page(&mut second, &mut got[1]).await; // 6..=21: all kept by the leader
    read_a_page(&mut second, &mut got[1]).await; // 22..=32 kept, 33..=37 from the leader's state
    assert_eq!(service.metrics.stream_replays.get(), 0);
    let mut near_the_end = follow(&service, version - 1).await;
    read_a_page(&mut near_the_end, &mut got[2]).await; // the state kept is now the newest
    read_a_page(&mut leader, &mut got[0]).await; // 33..=37 kept, 38..=48 folded on from its own
    assert_eq!(service.metrics.stream_replays.get(), 0);
    let mut third = follow(&service, 40).await;
    read_a_page(&mut third, &mut got[3]).await; // 41..=48 kept, nothing kept at 48
    assert_eq!(service.metrics.stream_replays.get(), 1);

    let starts = [0, 5, version - 1, 40];
    for (index, follower) in [leader, second, near_the_end, third].iter_mut().enumerate() {
        read_to_the_head(follower, &mut got[index]).await;
        let expected = &reference[starts[index] as usize..];
        assert_eq!(got[index].len(), expected.len(), "stream {index}");
        for (received, alone) in got[index].iter().zip(expected) {
            assert_eq!(received.seq, alone.seq, "stream {index}");
            assert_eq!(
                received.json, alone.json,
                "stream {index}, event {}",
                alone.seq
            );
        }
    }
    assert_eq!(service.metrics.stream_replays.get(), 1);
}

/// Plays the first legal action of the first seat to act; false when the
/// game is over.
pub(crate) async fn play_first_legal(service: &GameService, created: &CreatedGame) -> bool {
    let game_id = created.id;
    let status = service
        .state(game_id, &Viewer::Umpire, ReadAt::Newest)
        .await
        .expect("state")
        .status;
    let Some(seat) = status.to_act.first() else {
        return false;
    };
    let credential = service
        .credential(game_id, Some(&created.seat_tokens[seat]))
        .await
        .expect("the seat's credential");
    let legal = service
        .legal_actions(game_id, &credential.viewer, ReadAt::Newest)
        .await
        .expect("legal actions");
    let request = SubmitActionRequest {
        action: legal.actions[0].clone(),
        expected_version: None,
    };
    service
        .submit(game_id, &credential, request, None)
        .await
        .expect("accepted");
    true
}

/// The `status` of a stream event.
fn status_of(event: &RenderedEvent) -> serde_json::Value {
    serde_json::from_str::<serde_json::Value>(&event.json).expect("JSON")["status"].clone()
}

/// Given two spectators following a game as it is played, one reading
/// after every action and one only after every second: the one behind
/// takes the statuses the other kept, the status at the head among them,
/// and folds on from the state kept there, not from the game's start;
/// and both receive each event with the status after it, as one stream
/// reading the game alone on another instance does.
#[tokio::test]
async fn a_stream_an_action_behind_folds_on_from_what_the_stream_ahead_kept() {
    let (store, service, created) = new_game("arboretum", 7).await;
    let follow = || {
        service.follow(
            created.id,
            Viewer::Spectator,
            StreamClient::Unknown,
            created.version,
        )
    };
    let (mut ahead, mut behind) = (
        follow().await.expect("followed"),
        follow().await.expect("followed"),
    );
    let (mut got_ahead, mut got_behind) = (Vec::new(), Vec::new());
    let mut action = 0;
    while play_first_legal(&service, &created).await {
        action += 1;
        read_to_the_head(&mut ahead, &mut got_ahead).await;
        if action % 2 == 0 {
            read_to_the_head(&mut behind, &mut got_behind).await;
        }
    }
    read_to_the_head(&mut behind, &mut got_behind).await;
    // Only the first read, with nothing kept yet, folded the setup.
    assert_eq!(service.metrics.stream_replays.get(), 1);

    let alone = GameService::new(store, Arc::new(registry()));
    let mut reference = Vec::new();
    let mut follower = alone
        .follow(
            created.id,
            Viewer::Spectator,
            StreamClient::Unknown,
            created.version,
        )
        .await
        .expect("followed");
    read_to_the_head(&mut follower, &mut reference).await;
    assert!(reference.len() > 40, "{} events", reference.len());
    for got in [&got_ahead, &got_behind] {
        assert_eq!(got.len(), reference.len());
        for (received, alone) in got.iter().zip(&reference) {
            assert_eq!(received.seq, alone.seq);
            assert_eq!(status_of(received), status_of(alone), "after {}", alone.seq);
        }
    }
}

/// Given an Arboretum game followed at its head by two spectators, each
/// seat (red twice) and the umpire, when an action is played through this
/// instance, then the page after it is rendered once for each of the four
/// viewers as the append is announced, every stream takes its viewer's
/// page without reading the game (and, two actions later, both pages in
/// turn), and each receives exactly what a stream of its viewer reading
/// the game alone on another instance receives: a seat its own hand,
/// never the other's.
#[tokio::test]
async fn an_append_pushes_its_page_to_each_viewer_and_no_stream_at_the_head_reads() {
    let (store, service, created) = new_game("arboretum", 11).await;
    assert!(play_first_legal(&service, &created).await);
    let before = service
        .state(created.id, &Viewer::Umpire, ReadAt::Newest)
        .await
        .expect("state")
        .version;
    let seat = |name: &str| Viewer::Seat(name.to_string());
    let viewers = [
        Viewer::Spectator,
        Viewer::Spectator,
        seat("red"),
        seat("red"),
        seat("blue"),
        Viewer::Umpire,
    ];
    let mut followers = Vec::new();
    for viewer in &viewers {
        let client = StreamClient::of(created.id, viewer, None);
        let follower = service
            .follow(created.id, viewer.clone(), client, before)
            .await
            .expect("followed");
        followers.push(follower);
    }
    let (reads, pushed) = (
        service.metrics.stream_reads.get(),
        service.metrics.stream_pages_pushed.get(),
    );

    assert!(play_first_legal(&service, &created).await);
    assert_eq!(service.metrics.stream_pages_pushed.get() - pushed, 4);
    let mut got = Vec::new();
    for follower in &mut followers {
        let batch = follower.read().await.expect("read");
        assert!(!batch.events.is_empty());
        assert_eq!(batch.version, batch.head, "the whole action in one page");
        got.push(batch.events.to_vec());
    }
    assert_eq!(
        service.metrics.stream_reads.get(),
        reads,
        "a stream at the head read the game"
    );
    // Two more actions while the streams do not read: each takes the two
    // pages in turn, the first saying that more is waiting.
    assert!(play_first_legal(&service, &created).await);
    assert!(play_first_legal(&service, &created).await);
    for (follower, got) in followers.iter_mut().zip(&mut got) {
        let first = follower.read().await.expect("read");
        assert!(first.version < first.head, "more is waiting");
        let second = follower.read().await.expect("read");
        assert_eq!(second.version, second.head);
        got.extend(first.events.iter().chain(second.events.iter()).cloned());
    }
    assert_eq!(
        service.metrics.stream_reads.get(),
        reads,
        "a stream two appends behind read the game"
    );

    // As JSON values: the store gives an action's keys in its own order.
    let texts = |events: &[RenderedEvent]| -> Vec<(u64, serde_json::Value)> {
        events
            .iter()
            .map(|event| (event.seq, serde_json::from_str(&event.json).expect("JSON")))
            .collect()
    };
    let alone = GameService::new(store, Arc::new(registry()));
    for (viewer, received) in viewers.iter().zip(&got) {
        let client = StreamClient::of(created.id, viewer, None);
        let mut follower = alone
            .follow(created.id, viewer.clone(), client, before)
            .await
            .expect("followed");
        let mut reference = Vec::new();
        read_to_the_head(&mut follower, &mut reference).await;
        assert_eq!(texts(received), texts(&reference), "{viewer:?}");
    }
    assert_ne!(
        texts(&got[2]),
        texts(&got[4]),
        "the seat that acted sees its action, the other does not"
    );
}

/// Given a Flower Fields game followed at its head by a spectator and
/// each seat, when an action's events fill more than a page (a deal), then
/// the append pushes every page of them to each viewer, each stream takes
/// them page after page without reading the game, and receives what a
/// stream of its viewer reading alone on another instance receives.
#[tokio::test]
async fn a_long_action_is_pushed_page_after_page() {
    let (store, service, created) = new_game("flower_fields", 5).await;
    let viewers: Vec<Viewer<String>> = std::iter::once(Viewer::Spectator)
        .chain((0..5).map(|seat| Viewer::Seat(seat.to_string())))
        .collect();
    let mut followers = Vec::new();
    for viewer in &viewers {
        let client = StreamClient::of(created.id, viewer, None);
        let follower = service
            .follow(created.id, viewer.clone(), client, created.version)
            .await
            .expect("followed");
        followers.push(follower);
    }
    let mut got = vec![Vec::new(); viewers.len()];
    let mut long_actions = 0;
    for _ in 0..400 {
        let reads = service.metrics.stream_reads.get();
        let before = followers[0].position();
        if !play_first_legal(&service, &created).await {
            break;
        }
        for (follower, got) in followers.iter_mut().zip(&mut got) {
            read_to_the_head(follower, got).await;
        }
        let moved = followers[0].position() - before;
        if moved > umpire_service::live::STREAM_PAGE && before > created.version {
            long_actions += 1;
            assert_eq!(
                service.metrics.stream_reads.get(),
                reads,
                "an action of {moved} events was read"
            );
        }
        if long_actions == 2 {
            break;
        }
    }
    assert!(long_actions > 0, "no action filled more than a page");

    let alone = GameService::new(store, Arc::new(registry()));
    for (viewer, received) in viewers.iter().zip(&got) {
        let client = StreamClient::of(created.id, viewer, None);
        let mut follower = alone
            .follow(created.id, viewer.clone(), client, created.version)
            .await
            .expect("followed");
        let mut reference = Vec::new();
        read_to_the_head(&mut follower, &mut reference).await;
        assert_eq!(received.len(), reference.len(), "{viewer:?}");
        for (received, alone) in received.iter().zip(&reference) {
            assert_eq!(received.seq, alone.seq, "{viewer:?}");
            let value = |json: &str| serde_json::from_str::<serde_json::Value>(json).expect("JSON");
            assert_eq!(
                value(&received.json),
                value(&alone.json),
                "{viewer:?} {}",
                alone.seq
            );
        }
    }
}

/// A fresh database, a service on it and a new game of `game` made there
/// from `seed`.
pub(crate) async fn new_game(game: &str, seed: u64) -> (EventStore, GameService, CreatedGame) {
    let url = umpire_storage::testing::fresh_database_url().await;
    let store = EventStore::new(patient_pool(&url, 4));
    let service = GameService::new(store.clone(), Arc::new(registry()));
    let created = service
        .create(CreateGameRequest {
            game: game.into(),
            options: serde_json::Value::Null,
            seed: Some(seed),
            clock: None,
        })
        .await
        .expect("created");
    (store, service, created)
}

async fn service_with(limits: ServiceLimits, game: &str) -> (GameService, uuid::Uuid) {
    let (store, game_id) = imported(game, 3).await;
    (
        GameService::with_limits(store, Arc::new(registry()), limits),
        game_id,
    )
}

/// A fresh database holding one simulated finished game of `game`.
async fn imported(game: &str, seed: u64) -> (EventStore, uuid::Uuid) {
    let url = umpire_storage::testing::fresh_database_url().await;
    let store = EventStore::new(patient_pool(&url, 4));
    let archive = simulated(game, seed);
    import_archive(&store, &registry(), archive.clone())
        .await
        .expect("imported");
    (store, archive.game_id)
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
        .state()
        .version();
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
        streams: StreamLimits {
            max_open: 10,
            max_per_client: 2,
            ..StreamLimits::default()
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

/// Given a stream whose lifetime has passed, its next item is its end,
/// `lifetime`, with the position to resume from; given one an event
/// before the end of a finished game, its next item is that event with the
/// end, `finished`. Neither sends anything more.
#[tokio::test]
async fn a_stream_ends_at_its_lifetime_or_with_its_finished_game() {
    let limits = |lifetime: Duration| ServiceLimits {
        streams: StreamLimits {
            heartbeat: Duration::from_millis(50),
            lifetime,
            ..StreamLimits::default()
        },
        ..ServiceLimits::default()
    };
    let (service, game_id) = service_with(limits(Duration::ZERO), "arboretum").await;
    let mut stream = service
        .stream(game_id, Viewer::Spectator, StreamClient::Unknown, 3, None)
        .await
        .expect("streamed");
    match stream.next().await {
        StreamItem::End(end) => {
            assert_eq!(end.reason, "lifetime");
            assert_eq!(end.after, 3);
        }
        other => panic!("expected the end: {other:?}"),
    }
    assert!(stream.ended());

    let (service, game_id) = service_with(limits(Duration::from_secs(3600)), "arboretum").await;
    let version = service
        .load(game_id, ReadAt::Newest)
        .await
        .expect("loaded")
        .state()
        .version();
    let mut stream = service
        .stream(
            game_id,
            Viewer::Spectator,
            StreamClient::Unknown,
            version - 1,
            None,
        )
        .await
        .expect("streamed");
    let StreamItem::Events(events, end) = stream.next().await else {
        panic!("the last event first");
    };
    assert_eq!(events.len(), 1);
    assert_eq!(end.map(|end| end.reason).as_deref(), Some("finished"));
    assert!(
        stream.ended(),
        "a finished game's stream ends with its last event"
    );
}

/// What a stream makes for each message it sends (the future of
/// `GameStream::next`) stays small: it is made, and moved, once a delivery
/// for every stream open. The store's reads and the recheck of a seat's
/// token, whose futures are kilobytes and rarely made, are boxed (the
/// future was 3,096 bytes before, 312 after).
#[tokio::test]
async fn the_work_a_stream_makes_for_each_message_is_small() {
    let (service, game_id) = service_with(ServiceLimits::default(), "flower_fields").await;
    let mut stream = service
        .stream(game_id, Viewer::Spectator, StreamClient::Unknown, 0, None)
        .await
        .expect("streamed");
    let next = stream.next();
    let size = std::mem::size_of_val(&next);
    assert!(size <= 1024, "the future of one message is {size} bytes");
}

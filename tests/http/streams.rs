//! Live streams (`GET /v1/games/{id}/stream`): what `/events` gives each
//! viewer, exactly once and in order, across instances, disconnects and a
//! lost listening connection; bounded in number and in what a stalled
//! reader costs.

use std::time::Duration;

use rand::SeedableRng;
use reqwest::StatusCode;
use serde_json::{json, Value};
use umpire_api::routes::stream::StreamLimits;
use umpire_api::ServiceOptions;

use crate::support::{assert_error, metric, Created, Served, TestApp};

/// One Server-Sent Events message.
#[derive(Debug, Default, Clone)]
pub(crate) struct Message {
    id: Option<u64>,
    pub(crate) event: Option<String>,
    data: String,
    comment: Option<String>,
    retry: Option<u64>,
}

impl Message {
    /// The message's `id:`, the version of its event.
    pub(crate) fn id(&self) -> Option<u64> {
        self.id
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("{e}: {}", self.data))
    }
}

/// A stream being read, message by message.
pub(crate) struct Sse {
    response: reqwest::Response,
    buffer: String,
    /// Everything received, as sent.
    raw: String,
}

impl Sse {
    pub(crate) async fn open(
        app: &TestApp,
        id: &str,
        token: Option<&str>,
        last_event_id: Option<u64>,
    ) -> Sse {
        Self::of(Self::request(app, id, token, last_event_id).await)
    }

    /// The stream a request for one answered (with headers of its own: a
    /// seat's cookie, say).
    pub(crate) fn of(response: reqwest::Response) -> Sse {
        assert_eq!(response.status(), StatusCode::OK, "opening the stream");
        assert_eq!(
            response.headers()["content-type"],
            "text/event-stream",
            "content type"
        );
        Sse {
            response,
            buffer: String::new(),
            raw: String::new(),
        }
    }

    async fn request(
        app: &TestApp,
        id: &str,
        token: Option<&str>,
        last_event_id: Option<u64>,
    ) -> reqwest::Response {
        let mut request = app.client.get(app.url(&format!("/v1/games/{id}/stream")));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(last) = last_event_id {
            request = request.header("Last-Event-ID", last.to_string());
        }
        request.send().await.expect("stream request")
    }

    /// The next message, or None when the server ended the response.
    async fn next(&mut self, within: Duration) -> Option<Message> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut message = Message::default();
                for line in block.lines() {
                    if let Some(comment) = line.strip_prefix(':') {
                        message.comment = Some(comment.trim().to_string());
                    } else if let Some((field, value)) = line.split_once(':') {
                        let value = value.strip_prefix(' ').unwrap_or(value);
                        match field {
                            "id" => message.id = Some(value.parse().expect("numeric id")),
                            "event" => message.event = Some(value.to_string()),
                            "data" => message.data.push_str(value),
                            "retry" => message.retry = Some(value.parse().expect("retry")),
                            other => panic!("unknown SSE field {other}"),
                        }
                    }
                }
                return Some(message);
            }
            let chunk = tokio::time::timeout(within, self.response.chunk())
                .await
                .expect("a message in time")
                .expect("the stream reads")?;
            let text = std::str::from_utf8(&chunk).expect("UTF-8");
            self.buffer.push_str(text);
            self.raw.push_str(text);
        }
    }

    /// The next event message (skipping `retry:` and heartbeats); an `end`
    /// message is returned too.
    pub(crate) async fn next_event(&mut self, within: Duration) -> Option<Message> {
        loop {
            let message = self.next(within).await?;
            if message.id.is_some() || message.event.is_some() {
                return Some(message);
            }
        }
    }
}

/// A ceiling on waiting for what a stream says next: a hang fails here; a
/// busy machine's slow answer does not.
const SOON: Duration = Duration::from_secs(60);

/// The whole log as a viewer sees it through `/events`, page by page.
async fn events_seen_by(app: &TestApp, id: &str, token: Option<&str>) -> Vec<Value> {
    let mut all = Vec::new();
    let mut after = 0;
    loop {
        let page: Value = app
            .get(
                &format!("/v1/games/{id}/events?after={after}&limit=1000"),
                token,
            )
            .await
            .json()
            .await
            .unwrap();
        all.extend(page["events"].as_array().unwrap().iter().cloned());
        match page["next_after"].as_u64() {
            Some(next) => after = next,
            None => return all,
        }
    }
}

/// The status a stream entry carries is the game's after that event.
async fn assert_status_after(app: &TestApp, id: &str, entry: &Value, version: u64) {
    let state: Value = app
        .get(&format!("/v1/games/{id}/state?at={version}"), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        entry["status"], state["status"],
        "{} after {version}",
        entry["game"]
    );
}

/// A stream entry without what it adds to an `/events` entry.
fn as_events_entry(mut streamed: Value) -> Value {
    let object = streamed.as_object_mut().unwrap();
    object.remove("game");
    object.remove("status");
    streamed
}

fn viewers(created: &Created) -> Vec<(String, Option<String>)> {
    let mut viewers = vec![
        ("spectator".to_string(), None),
        ("umpire".to_string(), Some(created.umpire_token.clone())),
    ];
    for (seat, token) in &created.seat_tokens {
        viewers.push((format!("seat {seat}"), Some(token.clone())));
    }
    viewers
}

/// For a whole game of every game, and every viewer: a client that is cut
/// off after every single event and resumes with `Last-Event-ID` receives
/// exactly `/events` for that viewer — no loss, no duplicate, the same
/// redaction — and then the `end` message of a finished game.
#[tokio::test]
async fn resuming_after_a_disconnect_at_every_version_gives_exactly_the_viewers_events() {
    let app = TestApp::spawn().await;
    for (game, seed) in [
        ("arboretum", 3),
        ("treeblox", 4),
        ("draft_cider", 5),
        ("flower_fields", 6),
    ] {
        let created = app.create(game, json!({}), seed).await;
        app.play_to_the_end(&created, seed, 2000).await;
        let version = app.stored_version(&created.id).await;
        for (viewer, token) in viewers(&created) {
            let expected = events_seen_by(&app, &created.id, token.as_deref()).await;
            assert_eq!(expected.len() as u64, version);
            let mut received = Vec::new();
            let mut last = None;
            loop {
                let mut stream = Sse::open(&app, &created.id, token.as_deref(), last).await;
                let message = stream.next_event(SOON).await.expect("a message");
                if message.event.as_deref() == Some("end") {
                    let end = message.json();
                    assert_eq!(end["reason"], "finished", "{game} as {viewer}: {end}");
                    assert_eq!(end["after"], version);
                    assert_eq!(end["status"]["finished"], true);
                    break;
                }
                let id = message.id.expect("an event has an id");
                assert_eq!(
                    id,
                    last.unwrap_or(0) + 1,
                    "{game} as {viewer}: not the next event"
                );
                let entry = message.json();
                assert_eq!(entry["game"], game);
                if token.is_none() {
                    assert_status_after(&app, &created.id, &entry, id).await;
                }
                received.push(as_events_entry(entry));
                last = Some(id);
                // Dropping the stream here is the disconnect.
            }
            assert_eq!(
                received, expected,
                "{game} as {viewer}: the resumed stream is not /events"
            );
        }
    }
}

/// Every viewer of a game streaming it while it is played, two streams of
/// each, all at once (the streams of a game share what they fold and
/// render, and several events often arrive together): the two of a viewer
/// receive the same; each receives its `/events` (where what a viewer may
/// see never changes as the game goes on; in Flower Fields an event can
/// become visible later, so there each entry is its `/events` entry or was
/// still hidden), and the spectator the game's status after every event.
#[tokio::test]
async fn every_viewer_streaming_a_game_live_at_once_gets_exactly_its_events() {
    let app = TestApp::spawn().await;
    for (game, seed) in [
        ("arboretum", 13),
        ("treeblox", 14),
        ("draft_cider", 15),
        ("flower_fields", 16),
    ] {
        let created = app.create(game, json!({}), seed).await;
        let mut streams = Vec::new();
        for (viewer, token) in viewers(&created) {
            // Two of each, so that viewers alike share too.
            for _ in 0..2 {
                let stream = Sse::open(&app, &created.id, token.as_deref(), None).await;
                streams.push((viewer.clone(), token.clone(), stream));
            }
        }
        app.play_to_the_end(&created, seed, 2000).await;
        let version = app.stored_version(&created.id).await;
        let mut seen: Vec<(String, Vec<Value>)> = Vec::new();
        for (viewer, token, mut stream) in streams {
            let mut received = Vec::new();
            loop {
                let message = stream.next_event(SOON).await.expect("a message");
                if message.event.as_deref() == Some("end") {
                    assert_eq!(message.json()["after"], version, "{game} as {viewer}");
                    break;
                }
                let entry = message.json();
                assert_eq!(message.id, entry["seq"].as_u64(), "{game} as {viewer}");
                if token.is_none() {
                    let at = entry["seq"].as_u64().unwrap();
                    assert_status_after(&app, &created.id, &entry, at).await;
                }
                received.push(as_events_entry(entry));
            }
            let expected = events_seen_by(&app, &created.id, token.as_deref()).await;
            assert_eq!(received.len(), expected.len(), "{game} as {viewer}");
            if game == "flower_fields" {
                for (live, end) in received.iter().zip(&expected) {
                    assert!(
                        live == end || live["type"] == "hidden",
                        "{game} as {viewer}: live {live} is neither {end} nor hidden"
                    );
                }
            } else {
                assert_eq!(
                    received, expected,
                    "{game} as {viewer}: the live stream is not /events"
                );
            }
            match seen.iter().find(|(earlier, _)| *earlier == viewer) {
                Some((_, first)) => {
                    assert_eq!(&received, first, "{game}: two streams of {viewer} differ")
                }
                None => seen.push((viewer, received)),
            }
        }
    }
}

/// The streams of a game share a copy of the state at the newest version
/// they have read, to fold the next events from (issue 35): a stream that
/// starts behind it, where no stream has folded before, must not take it
/// for the state at its own position. A stream at the head keeps that copy
/// after an action; one resumed two events earlier receives exactly those
/// events, each with the status after it.
#[tokio::test]
async fn a_stream_behind_the_state_its_game_shares_folds_from_its_own_position() {
    let app = TestApp::spawn().await;
    for (game, seed) in [("treeblox", 21), ("arboretum", 22), ("flower_fields", 23)] {
        let created = app.create(game, json!({}), seed).await;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        // Played with no stream open: nothing folded or kept for them.
        for _ in 0..4 {
            app.play_one(&created, &mut rng).await.expect("still going");
        }
        let before = app.stored_version(&created.id).await;
        let mut at_head = Sse::open(&app, &created.id, None, Some(before)).await;
        app.play_one(&created, &mut rng).await.expect("still going");
        let after = app.stored_version(&created.id).await;
        for version in before + 1..=after {
            let message = at_head.next_event(SOON).await.expect("a message");
            assert_eq!(message.id, Some(version), "{game}: the stream at the head");
        }
        let expected = events_seen_by(&app, &created.id, None).await;
        let mut behind = Sse::open(&app, &created.id, None, Some(before - 2)).await;
        for version in before - 1..=after {
            let message = behind.next_event(SOON).await.expect("a message");
            assert_eq!(message.id, Some(version), "{game}: {message:?}");
            let entry = message.json();
            assert_status_after(&app, &created.id, &entry, version).await;
            assert_eq!(
                as_events_entry(entry),
                expected[version as usize - 1],
                "{game}: event {version}"
            );
        }
    }
}

/// A seat following a game on one instance sees, at once, an action taken
/// through another instance on the same database: PostgreSQL tells the
/// first one (no heartbeat comes in between: they are ten minutes apart,
/// far beyond the wait for the event).
#[tokio::test]
async fn a_seat_streaming_from_one_instance_sees_an_action_taken_through_another() {
    let slow_heartbeat = ServiceOptions {
        streams: StreamLimits {
            heartbeat: Duration::from_secs(600),
            ..StreamLimits::default()
        },
        ..ServiceOptions::default()
    };
    let first = TestApp::spawn_with(slow_heartbeat.clone()).await;
    let second = first.another_instance_with(slow_heartbeat).await;
    let created = first.create("draft_cider", json!({"players": 2}), 7).await;
    let version = first.stored_version(&created.id).await;
    let mut stream = Sse::open(&first, &created.id, Some(created.token("1")), Some(version)).await;
    let opening = stream.next(SOON).await.unwrap();
    assert_eq!(opening.retry, Some(2000), "the stream starts with retry:");
    let action = second.legal_actions(&created.id, created.token("0")).await["actions"][0].clone();
    let started = std::time::Instant::now();
    let response = second
        .submit(&created.id, Some(created.token("0")), action)
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let message = stream.next_event(SOON).await.expect("the event");
    assert_eq!(message.id, Some(version + 1));
    assert!(
        started.elapsed() < SOON,
        "delivered in {:?}",
        started.elapsed()
    );
    let entry = message.json();
    assert_eq!(entry["actor"], "seat:0");
    // Seat 1 does not see seat 0's action (only its own).
    assert!(entry.get("action").is_none(), "{entry}");
}

/// Killing the instance's listening connection does not stop its streams:
/// it listens again, and streams read the log for what they missed.
#[tokio::test]
async fn streams_keep_working_when_the_listening_connection_is_lost() {
    let options = ServiceOptions {
        streams: StreamLimits {
            heartbeat: Duration::from_secs(60),
            ..StreamLimits::default()
        },
        ..ServiceOptions::default()
    };
    let first = TestApp::spawn_with(options.clone()).await;
    let second = first.another_instance_with(options).await;
    let created = first.create("treeblox", json!({}), 9).await;
    let version = first.stored_version(&created.id).await;
    let mut stream = Sse::open(&first, &created.id, None, Some(version)).await;
    stream.next(SOON).await.unwrap();
    // The first listens once it has a stream: soon after, not at once.
    let deadline = tokio::time::Instant::now() + SOON;
    while listener_connects(&first).await < 1.0 {
        assert!(tokio::time::Instant::now() < deadline, "never listened");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The instances listen with the test's own role, which may end its
    // own sessions.
    let (client, connection) = tokio_postgres::connect(&first.database_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let ended = client
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE query LIKE 'LISTEN umpire_appends%' AND datname = current_database()
               AND pid <> pg_backend_pid()",
            &[],
        )
        .await
        .unwrap();
    // The first, which serves a stream; the second serves none, so it does
    // not listen, and is not woken by every append.
    assert_eq!(ended.len(), 1, "only the instance with a stream listened");
    let mut to_act = second.summary(&created.id).await["status"]["to_act"][0]
        .as_str()
        .unwrap()
        .to_string();
    for step in 1..=3 {
        let action = second
            .legal_actions(&created.id, created.token(&to_act))
            .await["actions"][0]
            .clone();
        let response = second
            .submit(&created.id, Some(created.token(&to_act)), action)
            .await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let accepted: Value = response.json().await.unwrap();
        let new_version = accepted["version"].as_u64().unwrap();
        let mut seen = 0;
        while seen < new_version {
            let message = stream.next_event(SOON).await.expect("the event");
            seen = message.id.expect("an event");
        }
        assert_eq!(seen, new_version, "step {step}");
        if let Some(next) = accepted["status"]["to_act"][0].as_str() {
            to_act = next.to_string();
        }
    }
    let connects = listener_connects(&first).await;
    assert!(connects >= 2.0, "listened again: {connects}");
}

/// How many times `app` has connected its listening connection.
async fn listener_connects(app: &TestApp) -> f64 {
    let metrics = app.get("/metrics", None).await.text().await.unwrap();
    metric(&metrics, "umpire_append_listener_connects_total")
}

/// What a spectator's or another seat's stream carries of a secret bid:
/// nothing, while the bidder's and the umpire's carry it.
#[tokio::test]
async fn a_stream_never_carries_a_secret_its_viewer_may_not_see() {
    let app = TestApp::spawn().await;
    let created = app.create("arboretum", json!({}), 8).await;
    let red = created.token("red").to_string();
    let blue = created.token("blue").to_string();
    let mut streams = Vec::new();
    for token in [
        None,
        Some(blue.as_str()),
        Some(red.as_str()),
        Some(created.umpire_token.as_str()),
    ] {
        streams.push(Sse::open(&app, &created.id, token, None).await);
    }
    app.submit(
        &created.id,
        Some(&red),
        json!({"type": "choose_start", "seat": "red"}),
    )
    .await;
    let response = app
        .submit(
            &created.id,
            Some(&red),
            json!({"type": "bid", "groups": [{"size": 4, "plan": "bulletin"}]}),
        )
        .await;
    assert_eq!(response.status(), 201);
    let version = app.stored_version(&created.id).await;
    let marker = "\"size\":4";
    let mut carried = Vec::new();
    for stream in &mut streams {
        let mut last = 0;
        while last < version {
            last = stream.next_event(SOON).await.unwrap().id.unwrap();
        }
        carried.push(stream.raw.contains(marker));
    }
    assert_eq!(
        carried,
        [false, false, true, true],
        "spectator, blue, red, umpire"
    );
}

/// Open streams are limited per instance: one more is answered 503 with
/// Retry-After, and a slot frees when a reader leaves.
#[tokio::test]
async fn streams_beyond_the_limit_are_refused_with_503_and_retry_after() {
    let app = TestApp::spawn_with(ServiceOptions {
        streams: StreamLimits {
            max_open: 2,
            heartbeat: Duration::from_millis(100),
            ..StreamLimits::default()
        },
        ..ServiceOptions::default()
    })
    .await;
    let created = app.create("treeblox", json!({}), 1).await;
    let first = Sse::open(&app, &created.id, None, None).await;
    let _second = Sse::open(&app, &created.id, None, None).await;
    let refused = Sse::request(&app, &created.id, None, None).await;
    assert_eq!(refused.headers()["retry-after"], "1");
    let body = assert_error(refused, StatusCode::SERVICE_UNAVAILABLE, "busy").await;
    assert!(
        body["message"].as_str().unwrap().contains("limit of 2"),
        "{body}"
    );
    drop(first);
    // The server notices the closed connection when it next writes to it:
    // at the next heartbeat at the latest.
    let deadline = std::time::Instant::now() + SOON;
    loop {
        let response = Sse::request(&app, &created.id, None, None).await;
        if response.status() == StatusCode::OK {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no slot freed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let metrics = app.get("/metrics", None).await.text().await.unwrap();
    assert!(
        metric(
            &metrics,
            "umpire_streams_refused_total{reason=\"instance\"}"
        ) >= 1.0
    );
}

/// One client at its limit of streams cannot starve others: a spectator
/// from another address, and a seat's token, still get one; the client
/// itself is answered 429 `too_many_streams` with Retry-After, and its
/// answers are `no-store` (a stream carries a seat's secrets).
#[tokio::test]
async fn one_client_at_its_stream_limit_leaves_slots_for_others() {
    let app = TestApp::spawn_with(ServiceOptions {
        streams: StreamLimits {
            max_open: 10,
            max_per_client: 2,
            ..StreamLimits::default()
        },
        ..ServiceOptions::default()
    })
    .await;
    let created = app.create("treeblox", json!({}), 1).await;
    let first = Sse::open(&app, &created.id, None, None).await;
    assert_eq!(first.response.headers()["cache-control"], "no-store");
    let _second = Sse::open(&app, &created.id, None, None).await;
    let refused = Sse::request(&app, &created.id, None, None).await;
    assert_eq!(refused.headers()["retry-after"], "1");
    let body = assert_error(refused, StatusCode::TOO_MANY_REQUESTS, "too_many_streams").await;
    assert_eq!(body["details"]["limit"], 2);

    // Another address on the loopback network is another spectator.
    let elsewhere = reqwest::Client::builder()
        .local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap())
        .build()
        .unwrap();
    let response = elsewhere
        .get(app.url(&format!("/v1/games/{}/stream", created.id)))
        .send()
        .await
        .expect("stream request from 127.0.0.2");
    assert_eq!(response.status(), StatusCode::OK, "another address");
    let seat = Sse::open(&app, &created.id, Some(created.token("dark")), None).await;
    assert_eq!(seat.response.status(), StatusCode::OK, "a seat's token");
    let metrics = app.get("/metrics", None).await.text().await.unwrap();
    assert_eq!(
        metric(&metrics, "umpire_streams_refused_total{reason=\"client\"}"),
        1.0
    );
}

/// Behind a trusted proxy (`--trusted-proxy`), spectators are counted by
/// the address the proxy forwarded for, not the proxy's own: two
/// spectators behind it each have their own slots, and an address a client
/// wrote into the header itself does not make it another client.
#[tokio::test]
async fn spectators_behind_a_trusted_proxy_are_counted_by_their_own_address() {
    let app = TestApp::spawn_with(ServiceOptions {
        streams: StreamLimits {
            max_open: 10,
            max_per_client: 1,
            ..StreamLimits::default()
        },
        trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
        ..ServiceOptions::default()
    })
    .await;
    let created = app.create("treeblox", json!({}), 1).await;
    let through_proxy = |forwarded_for: &str| {
        app.client
            .get(app.url(&format!("/v1/games/{}/stream", created.id)))
            .header("X-Forwarded-For", forwarded_for)
            .send()
    };
    let first = through_proxy("10.0.0.1").await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let second = through_proxy("10.0.0.2").await.unwrap();
    assert_eq!(second.status(), StatusCode::OK, "another spectator");
    let spoofed = through_proxy("10.0.0.9, 10.0.0.1").await.unwrap();
    assert_error(spoofed, StatusCode::TOO_MANY_REQUESTS, "too_many_streams").await;

    // Without trusting it, the proxy's address is every spectator's.
    let untrusting = TestApp::spawn_with(ServiceOptions {
        streams: StreamLimits {
            max_open: 10,
            max_per_client: 1,
            ..StreamLimits::default()
        },
        ..ServiceOptions::default()
    })
    .await;
    let game = untrusting.create("treeblox", json!({}), 1).await;
    let stream = |forwarded_for: &str| {
        untrusting
            .client
            .get(untrusting.url(&format!("/v1/games/{}/stream", game.id)))
            .header("X-Forwarded-For", forwarded_for)
            .send()
    };
    let first = stream("10.0.0.1").await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let refused = stream("10.0.0.2").await.unwrap();
    assert_error(refused, StatusCode::TOO_MANY_REQUESTS, "too_many_streams").await;
    drop((first, second));
}

/// Heartbeats keep an idle stream alive; the idle limit ends it with a
/// reason and the position to resume from.
#[tokio::test]
async fn an_idle_stream_gets_heartbeats_then_ends_with_its_reason() {
    let app = TestApp::spawn_with(ServiceOptions {
        streams: StreamLimits {
            // Thirty heartbeats are due before the idle limit; three must
            // come even on a machine too busy to keep a 100 ms timer.
            heartbeat: Duration::from_millis(100),
            idle: Duration::from_secs(3),
            ..StreamLimits::default()
        },
        ..ServiceOptions::default()
    })
    .await;
    let created = app.create("treeblox", json!({}), 2).await;
    let version = app.stored_version(&created.id).await;
    let mut stream = Sse::open(&app, &created.id, None, Some(version)).await;
    let mut heartbeats = 0;
    let end = loop {
        let message = stream.next(SOON).await.expect("a message");
        if message.comment.as_deref() == Some("heartbeat") {
            heartbeats += 1;
        }
        if message.event.as_deref() == Some("end") {
            break message.json();
        }
    };
    assert!(heartbeats >= 3, "{heartbeats} heartbeats");
    assert_eq!(end["reason"], "idle");
    assert_eq!(end["after"], version);
    assert!(stream.next(SOON).await.is_none(), "nothing after the end");
}

/// A stream is refused like any read for a bad start, a bad token or an
/// unknown game, before anything is streamed.
#[tokio::test]
async fn a_bad_start_is_refused_with_a_clear_error() {
    let app = TestApp::spawn().await;
    let created = app.create("treeblox", json!({}), 2).await;
    let version = app.stored_version(&created.id).await;
    let path = format!("/v1/games/{}/stream", created.id);
    let bad_header = app
        .client
        .get(app.url(&path))
        .header("Last-Event-ID", "seven")
        .send()
        .await
        .unwrap();
    assert_error(bad_header, StatusCode::BAD_REQUEST, "invalid_last_event_id").await;
    let beyond = app
        .get(&format!("{path}?after={}", version + 1), None)
        .await;
    assert_error(beyond, StatusCode::BAD_REQUEST, "version_out_of_range").await;
    let bad_token = app.get(&path, Some("not-a-token")).await;
    assert_error(bad_token, StatusCode::UNAUTHORIZED, "invalid_token").await;
    let unknown = app
        .get(
            "/v1/games/6f1c2a54-8d0e-4a43-9b0a-3c1f5e2d7a90/stream",
            None,
        )
        .await;
    assert_error(unknown, StatusCode::NOT_FOUND, "game_not_found").await;
}

/// Readers that stop reading cost the server no memory for what they have
/// not read: a stream is pulled by its connection, so the server reads the
/// log only as a client takes what came before (what the kernel's socket
/// buffers hold is bounded by the kernel). Two hundred umpire streams that
/// read nothing follow a whole Flower Fields game, about 150 KB of events
/// each; the server (its own process) grows by far less than one such
/// stream's share per stream.
#[tokio::test]
async fn stalled_readers_do_not_grow_the_servers_memory() {
    const STALLED: usize = 200;
    let app = TestApp::spawn().await;
    let served = Served::start(&app.database_url, "info");
    let created = app.create("flower_fields", json!({}), 11).await;
    // Warm up what every stream shares: the fold of this game.
    let mut warm = tokio::net::TcpStream::connect(&served.address)
        .await
        .unwrap();
    let request = format!(
        "GET /v1/games/{}/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\r\n",
        created.id, created.umpire_token
    );
    use tokio::io::AsyncWriteExt;
    warm.write_all(request.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = served.rss_kib();
    let mut stalled = Vec::new();
    for _ in 0..STALLED {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(1024).unwrap();
        let mut connection = socket
            .connect(served.address.parse().unwrap())
            .await
            .unwrap();
        connection.write_all(request.as_bytes()).await.unwrap();
        stalled.push(connection);
    }
    app.play_to_the_end(&created, 11, 2000).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = served.rss_kib();
    let everything = events_seen_by(&app, &created.id, Some(&created.umpire_token)).await;
    let bytes_each = serde_json::to_string(&everything).unwrap().len() as u64;
    let grown_each = after.saturating_sub(before) * 1024 / STALLED as u64;
    eprintln!(
        "{STALLED} stalled streams: the server grew {} KiB ({grown_each} bytes each) \
         while each stream's events were {bytes_each} bytes",
        after.saturating_sub(before)
    );
    assert!(
        grown_each < bytes_each / 2 && grown_each < 64 * 1024,
        "the server grew {grown_each} bytes per stalled stream of {bytes_each} bytes of events"
    );
    // The server is none the worse: a reader that reads gets everything.
    let version = app.stored_version(&created.id).await;
    let mut stream = Sse::open(&app, &created.id, Some(&created.umpire_token), None).await;
    let mut last = 0;
    while last < version {
        last = stream.next_event(SOON).await.unwrap().id.unwrap();
    }
    assert_eq!(last, version);
    drop(stalled);
}

/// Anyone may mint tokens on an open service (a game created is a token
/// per seat), so tokens alone cannot keep one address from taking every
/// slot: an address holds at most its own limit of streams whatever the
/// tokens they carry, and another address still gets one.
#[tokio::test]
async fn one_address_cannot_take_every_slot_by_minting_tokens() {
    let app = TestApp::spawn_with(ServiceOptions {
        streams: StreamLimits {
            max_open: 20,
            max_per_client: 2,
            max_per_address: 3,
            heartbeat: Duration::from_millis(100),
            ..StreamLimits::default()
        },
        ..ServiceOptions::default()
    })
    .await;
    let mut open = Vec::new();
    for seed in 0..3 {
        let created = app.create("treeblox", json!({}), seed).await;
        open.push(Sse::open(&app, &created.id, Some(&created.umpire_token), None).await);
    }
    let minted = app.create("treeblox", json!({}), 9).await;
    let refused = Sse::request(&app, &minted.id, Some(&minted.umpire_token), None).await;
    assert_eq!(refused.headers()["retry-after"], "1");
    let body = assert_error(refused, StatusCode::TOO_MANY_REQUESTS, "too_many_streams").await;
    assert_eq!(body["details"]["limit"], 3);
    let spectator = Sse::request(&app, &minted.id, None, None).await;
    assert_error(spectator, StatusCode::TOO_MANY_REQUESTS, "too_many_streams").await;

    let elsewhere = reqwest::Client::builder()
        .local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap())
        .build()
        .unwrap();
    let response = elsewhere
        .get(app.url(&format!("/v1/games/{}/stream", minted.id)))
        .bearer_auth(&minted.umpire_token)
        .send()
        .await
        .expect("stream request from 127.0.0.2");
    assert_eq!(response.status(), StatusCode::OK, "another address");
    let metrics = app.get("/metrics", None).await.text().await.unwrap();
    assert_eq!(
        metric(&metrics, "umpire_streams_refused_total{reason=\"address\"}"),
        2.0
    );
    drop(open.pop());
    // The slot given back is the address's again: the server sees the
    // stream's end when it next writes to the closed connection, at the
    // next heartbeat at the latest.
    let deadline = std::time::Instant::now() + SOON;
    loop {
        let response = Sse::request(&app, &minted.id, Some(&minted.umpire_token), None).await;
        if response.status() == StatusCode::OK {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "a slot given back is the address's again"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

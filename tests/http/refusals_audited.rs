//! Properties over every game, through the server: every action the
//! service refuses, its audit re-decides to the same refusal (the same
//! code, so `agrees` and no disputed rejection); and every seat name
//! outside a game is refused with one code, `seats.unknown_seat`, by the
//! reissue, by an import of a log that records its reissue, and by the
//! audit of that log.
//!
//! Each case is a game created on one server and sent a random mix of
//! actions: played, sent by the wrong actor, spoilt, and the platform's own
//! (reissues, the clock's actions, timeouts naming a deadline), from every
//! seat and the umpire, on games with and without a clock.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use reqwest::StatusCode;
use serde_json::{json, Value};
use umpire_archive::{Archive, EntryKind};

use crate::archive_support::{rechain, registry, GAMES};
use crate::support::{Created, TestApp};

/// One action a case sends: which actor sends it, what it is, and the
/// numbers that pick among the choices a game offers.
#[derive(Debug, Clone)]
enum Attempt {
    /// A legal action of a seat the game waits for, by that seat.
    Play { pick: usize },
    /// A legal action of one actor (a seat or the umpire), sent by another.
    Borrowed { of: usize, by: usize, pick: usize },
    /// A legal action of an actor with one of its values spoilt.
    Spoilt {
        of: usize,
        pick: usize,
        key: usize,
        value: Value,
    },
    /// One of the platform's actions, by any actor, naming any seat.
    Platform {
        by: usize,
        which: usize,
        seat: usize,
    },
}

fn junk() -> impl Strategy<Value = Value> {
    // No floats: an action is stored as JSON and must come back the same.
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (0u64..30).prop_map(|n| json!(n)),
        "[a-z0-9 ]{0,8}".prop_map(Value::String),
        Just(json!("D5")),
        Just(json!("red")),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,6}", inner, 0..3)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn attempt() -> impl Strategy<Value = Attempt> {
    prop_oneof![
        3 => any::<usize>().prop_map(|pick| Attempt::Play { pick }),
        2 => (any::<usize>(), any::<usize>(), any::<usize>())
            .prop_map(|(of, by, pick)| Attempt::Borrowed { of, by, pick }),
        2 => (any::<usize>(), any::<usize>(), any::<usize>(), junk())
            .prop_map(|(of, pick, key, value)| Attempt::Spoilt { of, pick, key, value }),
        2 => (any::<usize>(), any::<usize>(), any::<usize>())
            .prop_map(|(by, which, seat)| Attempt::Platform { by, which, seat }),
    ]
}

/// A case: the game, its seed, whether it has a clock, what is sent.
fn case() -> impl Strategy<Value = (usize, u64, bool, Vec<Attempt>)> {
    (
        0..GAMES.len(),
        0u64..1000,
        any::<bool>(),
        // Fewer refusals per actor than its budget (`throttle.rs`), so
        // every one of them is recorded.
        prop::collection::vec(attempt(), 1..16),
    )
}

/// Every actor of a game as (log label, token): the seats, then the umpire.
fn actors(created: &Created) -> Vec<(String, String)> {
    created
        .seat_tokens
        .iter()
        .map(|(seat, token)| (format!("seat:{seat}"), token.clone()))
        .chain([("umpire".to_string(), created.umpire_token.clone())])
        .collect()
}

async fn legal_actions(app: &TestApp, created: &Created, token: &str) -> Vec<Value> {
    app.get(
        &format!("/v1/games/{}/legal-actions", created.id),
        Some(token),
    )
    .await
    .json::<Value>()
    .await
    .unwrap()["actions"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The platform's actions a case may send, naming `seat`.
fn platform_action(which: usize, seat: &str) -> Value {
    let actions = [
        json!({"type": "reissue_seat_token", "seat": seat}),
        json!({"type": "clock_pause"}),
        json!({"type": "clock_resume"}),
        json!({"type": "clock_add_time", "seat": seat, "ms": 5000}),
        json!({"type": "clock_add_time", "seat": seat, "ms": 0}),
        json!({"type": "clock_add_time", "seat": seat, "ms": -1}),
        json!({"type": "timeout", "seat": seat, "deadline": "2026-11-27T10:00:00.000000Z"}),
        json!({"type": "timeout", "seat": seat}),
        json!({"type": "no_such_action"}),
    ];
    actions[which % actions.len()].clone()
}

/// The action an attempt sends and the actor (label, token) it sends it
/// as; `None` when the game offers nothing to pick.
async fn resolve(
    app: &TestApp,
    created: &Created,
    attempt: &Attempt,
) -> Option<(Value, (String, String))> {
    let actors = actors(created);
    let any = |index: usize| actors[index % actors.len()].clone();
    let legal_of = |actor: (String, String), pick: usize| async move {
        let legal = legal_actions(app, created, &actor.1).await;
        (!legal.is_empty()).then(|| legal[pick % legal.len()].clone())
    };
    match attempt {
        Attempt::Play { pick } => {
            let summary = app.summary(&created.id).await;
            let to_act = summary["status"]["to_act"].as_array().cloned()?;
            let actor = match to_act.get(pick % to_act.len().max(1)) {
                Some(seat) => actors
                    .iter()
                    .find(|(label, _)| label == &format!("seat:{}", seat.as_str().unwrap()))
                    .cloned()?,
                None => actors.last().cloned()?,
            };
            Some((legal_of(actor.clone(), *pick).await?, actor))
        }
        Attempt::Borrowed { of, by, pick } => Some((legal_of(any(*of), *pick).await?, any(*by))),
        Attempt::Spoilt {
            of,
            pick,
            key,
            value,
        } => {
            let actor = any(*of);
            let mut action = legal_of(actor.clone(), *pick).await?;
            let object = action.as_object_mut()?;
            let keys: Vec<String> = object.keys().cloned().collect();
            object.insert(keys[key % keys.len()].clone(), value.clone());
            Some((action, actor))
        }
        Attempt::Platform { by, which, seat } => {
            let mut seats: Vec<String> = created
                .seat_tokens
                .iter()
                .map(|(seat, _)| seat.clone())
                .collect();
            seats.extend(["7".to_string(), "purple".to_string()]);
            let action = platform_action(*which, &seats[seat % seats.len()]);
            Some((action, any(*by)))
        }
    }
}

/// One case: every refusal the server answers is in the audit, re-decided
/// to the same code.
async fn refusals_are_audited_as_refused(
    app: &TestApp,
    (game, seed, clocked, attempts): (usize, u64, bool, Vec<Attempt>),
    codes_seen: &std::cell::RefCell<std::collections::BTreeSet<String>>,
) -> Result<(), TestCaseError> {
    let game = GAMES[game];
    let mut request = json!({"game": game, "seed": seed});
    if clocked {
        // Long enough that the clock times no one out during a case.
        request["clock"] = json!({"per_move_ms": 3_600_000, "reserve_ms": 1000});
    }
    let created = app.create_with(&request).await;
    let mut refused = Vec::new();
    for attempt in &attempts {
        let Some((action, (label, token))) = resolve(app, &created, attempt).await else {
            continue;
        };
        let response = app.submit(&created.id, Some(&token), action.clone()).await;
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        match status {
            StatusCode::CREATED => {}
            StatusCode::UNPROCESSABLE_ENTITY | StatusCode::BAD_REQUEST => {
                refused.push((label, action, body["code"].as_str().unwrap().to_string()));
            }
            other => prop_assert!(false, "{game}: {action} by {label}: {other} {body}"),
        }
    }
    let audit: Value = app
        .get(
            &format!("/v1/games/{}/audit", created.id),
            Some(&created.umpire_token),
        )
        .await
        .json()
        .await
        .unwrap();
    prop_assert_eq!(
        &audit["valid"],
        &json!(true),
        "{}: {}",
        game,
        audit["first_failure"]
    );
    let rejected: Vec<&Value> = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["kind"] == "rejected")
        .collect();
    for entry in &rejected {
        prop_assert_eq!(
            &entry["today"]["agrees"],
            &json!(true),
            "{}: the audit disputes the service's refusal {}",
            game,
            entry
        );
        prop_assert_eq!(
            &entry["today"]["violation"]["code"],
            &entry["violation"]["code"],
            "{}",
            game
        );
    }
    prop_assert_eq!(&audit["disputed_rejections"], &json!(0), "{}", game);
    // Every refusal answered is one the audit lists, with its code.
    for (label, action, code) in &refused {
        codes_seen.borrow_mut().insert(code.clone());
        prop_assert!(
            rejected.iter().any(|entry| entry["actor"] == json!(label)
                && entry["action"] == *action
                && entry["violation"]["code"] == json!(code)),
            "{}: {} by {} refused {} is not in the audit",
            game,
            action,
            label,
            code
        );
    }
    Ok(())
}

/// A test's server, kept for all the cases of a property: the runtime the
/// server runs on, the server, and a way to run one case on it.
struct Bench {
    runtime: tokio::runtime::Runtime,
    app: TestApp,
}

impl Bench {
    fn new() -> Bench {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let app = runtime.block_on(TestApp::spawn());
        Bench { runtime, app }
    }
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        // Each case is a game on the server: shrinking a failure is slow,
        // and its first form is readable enough.
        max_shrink_iters: 64,
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn every_refusal_of_the_service_is_refused_by_its_audit_for_the_same_reason() {
    let bench = Bench::new();
    let codes_seen = std::cell::RefCell::default();
    runner(48)
        .run(&case(), |case| {
            bench.runtime.block_on(refusals_are_audited_as_refused(
                &bench.app,
                case,
                &codes_seen,
            ))
        })
        .unwrap();
    // The cases met every kind of refusal: the platform's and the games'.
    let codes_seen = codes_seen.into_inner();
    for code in [
        umpire_domain::seat_tokens::NOT_AN_ACTION.code,
        umpire_domain::clock::NOT_THE_CLOCK.code,
        "invalid_action",
    ] {
        assert!(
            codes_seen.contains(code),
            "{code} never met: {codes_seen:?}"
        );
    }
    for game in GAMES {
        assert!(
            codes_seen
                .iter()
                .any(|code| code.starts_with(&format!("{game}."))),
            "no refusal of {game} met: {codes_seen:?}"
        );
    }
    assert!(
        codes_seen
            .iter()
            .any(|code| code.starts_with("clock.")
                && code != umpire_domain::clock::NOT_THE_CLOCK.code),
        "no refusal on the clock met: {codes_seen:?}"
    );
}

/// The log of a game the server exported, under a new id, with the
/// umpire's reissue of `seat` recorded at its end, chained again.
fn with_reissue_of(log: &Archive, seat: &str) -> Archive {
    let mut archive = log.clone();
    archive.game_id = uuid::Uuid::new_v4();
    let last = archive.events.last().unwrap().clone();
    let mut reissue = last.clone();
    reissue.event_type = "seat_token_reissued".into();
    reissue.payload = json!({"type": "seat_token_reissued", "seat": seat});
    reissue.actor = "umpire".into();
    reissue.action = json!({"type": "reissue_seat_token", "seat": seat}).into();
    reissue.decided_at = last.seq;
    archive.events.push(reissue);
    rechain(&mut archive);
    archive
}

fn outside_name() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..1000).prop_map(|n| n.to_string()),
        "[a-z][a-z0-9_-]{0,11}",
    ]
}

#[test]
fn a_seat_outside_the_game_is_refused_with_one_code_by_reissue_import_and_audit() {
    let bench = Bench::new();
    let unknown = umpire_domain::seat_tokens::UNKNOWN_SEAT.code;
    // Each game created once, a few actions in, and its log exported.
    let games: Vec<(Created, Archive)> = bench.runtime.block_on(async {
        let app = &bench.app;
        let mut games = Vec::new();
        for game in GAMES {
            let created = app.create(game, json!({}), 11).await;
            let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(3);
            for _ in 0..3 {
                app.play_one(&created, &mut rng).await;
            }
            let log: Archive = app
                .get(
                    &format!("/v1/games/{}/export", created.id),
                    Some(&created.umpire_token),
                )
                .await
                .json()
                .await
                .unwrap();
            games.push((created, log));
        }
        games
    });
    let check = |game: usize, name: String| -> Result<(), TestCaseError> {
        let (created, log) = &games[game];
        if created.seat_tokens.iter().any(|(seat, _)| *seat == name) {
            return Ok(());
        }
        let label = format!("{}: seat {name:?}", log.game);
        bench.runtime.block_on(async {
            // The reissue.
            let response = bench
                .app
                .post_json(
                    &format!("/v1/games/{}/seats/{name}/reissue", created.id),
                    Some(&created.umpire_token),
                    &json!({}),
                )
                .await;
            prop_assert_eq!(
                response.status(),
                StatusCode::UNPROCESSABLE_ENTITY,
                "{}",
                label
            );
            let body: Value = response.json().await.unwrap();
            prop_assert_eq!(&body["code"], &json!(unknown), "{}", label);
            // The import of a log that records it.
            let forged = with_reissue_of(log, &name);
            let (status, body) = bench.app.import(&forged).await;
            prop_assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{}", label);
            prop_assert_eq!(&body["code"], &json!("archive_action_refused"), "{}", label);
            prop_assert_eq!(
                &body["details"]["violation"],
                &json!(unknown),
                "{} {}",
                label,
                body
            );
            prop_assert_eq!(
                &body["details"]["seq"],
                &json!(forged.events.len()),
                "{}",
                label
            );
            // The audit of that log (`umpire audit`).
            let report = umpire_archive::audit(&registry(), &forged).unwrap();
            let entry = report
                .entries
                .iter()
                .find(|entry| entry.action["type"] == "reissue_seat_token")
                .unwrap();
            prop_assert_eq!(entry.kind, EntryKind::Accepted, "{}", label);
            let today = entry.today.as_ref().unwrap();
            prop_assert!(!today.agrees, "{}", label);
            prop_assert_eq!(
                today
                    .verdict
                    .violation
                    .as_ref()
                    .map(|ruling| ruling.code.as_str()),
                Some(unknown),
                "{}",
                label
            );
            prop_assert_eq!(
                report
                    .closing
                    .first_failure
                    .as_ref()
                    .and_then(|d| d.violation.as_deref()),
                Some(unknown),
                "{}",
                label
            );
            Ok(())
        })
    };
    // The names the issue met, then any.
    for (game, (created, _)) in games.iter().enumerate() {
        for name in ["7", "100", &created.seat_tokens.len().to_string()] {
            check(game, name.to_string()).unwrap();
        }
    }
    runner(32)
        .run(&(0..GAMES.len(), outside_name()), |(game, name)| {
            check(game, name)
        })
        .unwrap();
}

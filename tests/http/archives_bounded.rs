//! Answers whose size grows with what is stored or sent are streamed, through
//! the real server on a real port: an audit and an export of a game with
//! thousands of rejections, and bulk scores of a body of junk. Peak memory
//! itself is measured by `scripts/rss.sh`; these hold the shape and the
//! bounds a streamed answer must keep.

use reqwest::StatusCode;
use serde_json::Value;
use umpire_api::routes::archives::MAX_ARCHIVES_PER_REQUEST;
use umpire_archive::{audit, Archive, ScoreRow};
use umpire_domain::record::RecordedRejection;
use umpire_domain::GameError;

use crate::archive_support::{registry, simulated, GAMES};
use crate::support::TestApp;

/// The first simulated game that can hold `count` refusals, with them.
fn game_with_refusals(count: usize) -> Archive {
    GAMES
        .iter()
        .flat_map(|game| (0..20).map(move |index| simulated(game, index)))
        .find_map(|archive| with_refusals(archive, count))
        .expect("a simulated game with room for that many refusals")
}

/// `archive` with `count` more rejections, each a real refusal: an action
/// seen somewhere in the game, sent by a seat at a version where today's
/// rules refuse it, recorded with that ruling. No two share version, seat
/// and action, and all share one time, so only the id orders them within a
/// version.
fn with_refusals(mut archive: Archive, count: usize) -> Option<Archive> {
    let registry = registry();
    let seats = registry
        .get(&archive.game)
        .unwrap()
        .seats(&archive.options)
        .unwrap();
    let actions: Vec<Value> = archive
        .events
        .iter()
        .map(|e| Value::clone(&e.action))
        .chain(archive.rejections.iter().map(|r| r.action.clone()))
        .filter(|a| !a.is_null())
        .fold(Vec::new(), |mut distinct, action| {
            if !distinct.contains(&action) {
                distinct.push(action);
            }
            distinct
        });
    let mut refusals = Vec::new();
    umpire_archive::replay(&registry, &archive, |step| {
        // Nobody can act before the setup events: version 0 has no refusals.
        if step.before.version() == 0 {
            return;
        }
        for seat in &seats {
            let actor = format!("seat:{seat}");
            // The store keeps at most this many distinct refusals per seat
            // and version, and import refuses archives with more.
            let mut kept_here = 0;
            for action in &actions {
                if refusals.len() == count || kept_here == umpire_storage::REFUSALS_KEPT_PER_VERSION
                {
                    break;
                }
                if let Err(GameError::Violation(violation)) = step
                    .before
                    .state
                    .decide(&umpire_domain::actor_label::read(&actor).unwrap(), action)
                {
                    refusals.push(RecordedRejection {
                        at_version: step.before.version(),
                        actor: actor.clone(),
                        action: action.clone(),
                        code: violation.code.to_string(),
                        message: violation.message.clone(),
                        rule: Some(violation.rule.to_string()),
                        rules_version: archive.rules_version,
                        recorded_at: "2026-11-23T12:00:00.000000Z".into(),
                        repeats: 1,
                    });
                    kept_here += 1;
                }
            }
        }
    })
    .unwrap();
    if refusals.len() < count {
        return None;
    }
    // Only these: a refusal the simulation recorded could repeat one of them.
    archive.rejections = refusals;
    Some(archive)
}

fn keys_sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by_key(|(key, _)| *key);
            Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key.clone(), keys_sorted(value)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(keys_sorted).collect()),
        other => other.clone(),
    }
}

fn is_streamed(response: &reqwest::Response) -> bool {
    response.content_length().is_none()
        && response
            .headers()
            .get("transfer-encoding")
            .is_some_and(|v| v == "chunked")
}

#[tokio::test]
async fn an_audit_and_an_export_of_thousands_of_rejections_stream_every_one() {
    let app = TestApp::spawn().await;
    let archive = game_with_refusals(5_000);
    let (status, created) = app.import(&archive).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap();
    let umpire = created["umpire_token"].as_str().unwrap();

    // Both answers are read before either is checked: checking takes long
    // enough, on a busy machine, for an idle connection to be closed under
    // the client.
    let response = app
        .get(&format!("/v1/games/{id}/export"), Some(umpire))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(is_streamed(&response), "{:?}", response.headers());
    let exported = response.bytes().await.unwrap();
    let response = app
        .get(&format!("/v1/games/{id}/audit"), Some(umpire))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(is_streamed(&response), "{:?}", response.headers());
    let streamed: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();

    let exported: Archive = serde_json::from_slice(&exported).unwrap();
    assert_eq!(exported.events, archive.events);
    assert_eq!(exported.rejections.len(), archive.rejections.len());
    // Every rejection, in audit order: by version, each one once.
    let mut sent = archive.rejections.clone();
    let mut got = exported.rejections.clone();
    assert!(got.windows(2).all(|w| w[0].at_version <= w[1].at_version));
    // PostgreSQL keeps an action's keys in its own order: compare by content.
    let key = |r: &RecordedRejection| keys_sorted(&serde_json::to_value(r).unwrap()).to_string();
    sent.sort_by_cached_key(key);
    got.sort_by_cached_key(key);
    let differing = sent.iter().zip(&got).position(|(a, b)| a != b);
    assert_eq!(
        differing,
        None,
        "{:?}",
        differing.map(|i| (&sent[i], &got[i]))
    );

    // The same document the library builds whole from the same export.
    let whole = serde_json::to_value(audit(&registry(), &exported).unwrap()).unwrap();
    assert_eq!(streamed, whole);
    let rejected = streamed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["kind"] == "rejected")
        .count();
    assert_eq!(rejected, archive.rejections.len());
    assert_eq!(streamed["disputed_rejections"], 0);
    assert_eq!(streamed["valid"], true);
}

#[tokio::test]
async fn scoring_thousands_of_junk_lines_streams_one_short_error_row_per_line() {
    let app = TestApp::spawn().await;
    // A JSON string is quoted back by the parser's error: 10 KB of it a line.
    let junk = format!("\"{}\"", "x".repeat(10_000));
    let lines = 3_000;
    let body: String = (0..lines)
        .map(|i| {
            if i % 2 == 0 {
                format!("{junk}\n")
            } else {
                "x\n".into()
            }
        })
        .collect();
    let response = app.post("/v1/scores", None, body).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(is_streamed(&response), "{:?}", response.headers());
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["games"], lines);
    assert_eq!(answer["errors"], lines);
    let rows: Vec<ScoreRow> = serde_json::from_value(answer["rows"].clone()).unwrap();
    assert_eq!(rows.len(), lines);
    for (index, row) in rows.iter().enumerate() {
        assert_eq!(row.source, format!("body:{}", index + 1));
        let error = row.error.as_deref().unwrap();
        assert!(error.starts_with("not an archive"), "{error}");
        assert!(
            error.chars().count() <= ScoreRow::MAX_TEXT_CHARS,
            "row {index}: {} characters",
            error.chars().count()
        );
    }
}

#[tokio::test]
async fn a_body_with_more_archives_than_a_request_scores_is_refused_before_any_row() {
    let app = TestApp::spawn().await;
    let body = "x\n".repeat(MAX_ARCHIVES_PER_REQUEST + 1);
    let response = app.post("/v1/scores", None, body).await;
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["code"], "payload_too_large");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains(&MAX_ARCHIVES_PER_REQUEST.to_string()),
        "{error}"
    );
    // At the limit, every line is a row.
    let body = "x\n".repeat(MAX_ARCHIVES_PER_REQUEST);
    let answer: Value = app
        .post("/v1/scores", None, body)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(answer["games"], MAX_ARCHIVES_PER_REQUEST);
    assert_eq!(answer["errors"], MAX_ARCHIVES_PER_REQUEST);
}

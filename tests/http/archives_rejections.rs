//! Imported rejections are checked like the rest of an archive: each bad one
//! is a 422 naming its index in `rejections`, and nothing is stored.

use reqwest::StatusCode;
use serde_json::{json, Value};
use umpire_archive::Archive;
use umpire_domain::record::RecordedRejection;
use umpire_storage::REFUSALS_KEPT_PER_VERSION;

use crate::archive_support::{first_action_seq, rechain, refusal, simulated};
use crate::support::TestApp;

/// A refusal this service could have recorded in `archive`, told apart
/// from the good ones `with_bad_rejection` puts before it (`n` from 0).
fn plausible(archive: &Archive) -> RecordedRejection {
    refusal(archive, "seat:red", archive.version(), 1_000_000)
}

/// An arboretum archive whose rejection `index` is made bad by `spoil`,
/// after `index` good ones.
fn with_bad_rejection(index: usize, spoil: impl FnOnce(&mut RecordedRejection)) -> Archive {
    let mut archive = simulated("arboretum", 1);
    archive.rejections.clear();
    for n in 0..index {
        let mut good = plausible(&archive);
        good.action["n"] = json!(n);
        archive.rejections.push(good);
    }
    let mut bad = plausible(&archive);
    spoil(&mut bad);
    archive.rejections.push(bad);
    archive
}

/// One way to spoil a rejection.
type Spoil = Box<dyn FnOnce(&mut RecordedRejection)>;

async fn assert_refused(app: &TestApp, archive: &Archive, code: &str, index: usize) {
    let (status, body) = app.import(archive).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{code}: {body}");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["details"]["rejection"], index, "{body}");
    assert_nothing_stored(app, archive).await;
}

async fn assert_nothing_stored(app: &TestApp, archive: &Archive) {
    let response = app
        .get(&format!("/v1/games/{}", archive.game_id), None)
        .await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn each_bad_rejection_is_a_422_naming_it_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let cases: Vec<(&str, Spoil)> = vec![
        (
            "archive_rejection_unknown_actor",
            Box::new(|r| r.actor = "seat:nobody".into()),
        ),
        (
            "archive_rejection_version_out_of_range",
            Box::new(|r| r.at_version = 99_999),
        ),
        (
            "archive_rejection_nul_character",
            Box::new(|r| r.message = "bad\u{0}".into()),
        ),
        (
            "archive_rejection_nul_character",
            Box::new(|r| r.action["note"] = json!("a\u{0}b")),
        ),
        (
            "archive_rejection_invalid_time",
            Box::new(|r| r.recorded_at = "not a date".into()),
        ),
        (
            "archive_rejection_invalid_text",
            Box::new(|r| r.code = String::new()),
        ),
        (
            "archive_rejection_rules_version_mismatch",
            Box::new(|r| r.rules_version += 7),
        ),
        (
            "archive_rejection_invalid_repeats",
            Box::new(|r| r.repeats = 0),
        ),
    ];
    for (code, spoil) in cases {
        assert_refused(&app, &with_bad_rejection(2, spoil), code, 2).await;
    }
    // The same archive with good rejections is imported, counts and all.
    let mut good = with_bad_rejection(2, |r| r.repeats = 5_000);
    good.rejections[0].repeats = 1;
    let (status, created) = app.import(&good).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let export: Value = app
        .get(
            &format!("/v1/games/{}/export", good.game_id),
            created["umpire_token"].as_str(),
        )
        .await
        .json()
        .await
        .unwrap();
    let repeats: Vec<&Value> = export["rejections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["repeats"])
        .collect();
    assert!(repeats.contains(&&json!(5_000)), "{repeats:?}");
}

#[tokio::test]
async fn a_hundred_thousand_copies_of_one_rejection_are_refused_at_the_second() {
    let app = TestApp::spawn().await;
    let mut archive = simulated("arboretum", 1);
    let mut copy = plausible(&archive);
    // As short as a refusal gets, so that this many fit in one body.
    copy.action = json!({"type": "choose_start", "seat": "red"});
    archive.rejections = vec![copy; 131_072];
    assert_refused(&app, &archive, "archive_rejection_duplicate", 1).await;
}

#[tokio::test]
async fn more_distinct_rejections_than_the_store_keeps_are_refused() {
    let app = TestApp::spawn().await;
    let index = REFUSALS_KEPT_PER_VERSION as usize;
    let archive = with_bad_rejection(index, |r| r.action["n"] = json!("one too many"));
    assert_refused(&app, &archive, "archive_rejection_over_cap", index).await;
}

#[tokio::test]
async fn events_with_a_nul_or_an_unreadable_time_are_a_4xx_not_a_500() {
    let app = TestApp::spawn().await;
    let mut archive = simulated("arboretum", 1);
    let seq = first_action_seq(&archive);
    std::sync::Arc::make_mut(&mut archive.events[seq - 1].action)["note"] = json!("a\u{0}b");
    rechain(&mut archive);
    let (status, body) = app.import(&archive).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_nothing_stored(&app, &archive).await;

    let mut archive = simulated("arboretum", 1);
    archive.events[seq - 1].recorded_at = "not a date".into();
    rechain(&mut archive);
    let (status, body) = app.import(&archive).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_nothing_stored(&app, &archive).await;
}

//! Archives exported by earlier builds hash the same today: the recorded
//! format never changes with the code that writes it (issue 35).

use umpire_archive::Archive;
use umpire_domain::chain::CanonicalJson;

/// Archives exported, before issue 35 changed how an append encodes its
/// events, by that build (`scripts/archives-of-a-build.sh` with the release
/// binary of `1fcc209`): whole games of every game, a clocked game timed
/// out, a seat's token reissued, and actions whose JSON takes every path
/// of the canonical encoding (escapes, keys past U+E000, floats, integers
/// past 2^53, a NUL stored as U+FFFD).
pub const BEFORE_ISSUE_35: &str = include_str!("../data/archives/before-issue-35.jsonl");

pub fn archives_before_issue_35() -> Vec<Archive> {
    BEFORE_ISSUE_35
        .lines()
        .map(|line| Archive::from_json(line).expect("an archive"))
        .collect()
}

/// Given every event those builds recorded, when its payload and action are
/// encoded as the append encodes them today (once, for the hash, the store
/// and the answer), then the hash over them is the recorded one.
#[test]
fn the_appends_encoding_gives_every_hash_an_earlier_build_recorded() {
    let archives = archives_before_issue_35();
    assert_eq!(archives.len(), 8);
    let mut events = 0;
    for archive in &archives {
        let game_id = archive.game_id.to_string();
        for event in &archive.events {
            let payload = CanonicalJson::encode(&event.payload);
            let action = CanonicalJson::encode(&event.action);
            assert_eq!(
                event.chain_link(&game_id).hash_encoded(&payload, &action),
                event.hash,
                "{} event {}: the hash of its encoding is not the recorded one",
                archive.game,
                event.seq
            );
            events += 1;
        }
    }
    assert!(events > 600, "{events} events");
}

/// The same archives audit clean: the chain holds and every action
/// re-decides to what was recorded.
#[test]
fn archives_an_earlier_build_exported_audit_clean() {
    let registry = crate::support::registry();
    for archive in archives_before_issue_35() {
        let report = umpire_archive::audit(&registry, &archive).expect("auditable");
        assert!(
            report.closing.valid && report.closing.disputed_rejections == 0,
            "{} {}: {:?}",
            archive.game,
            archive.game_id,
            report.closing.first_failure
        );
    }
}

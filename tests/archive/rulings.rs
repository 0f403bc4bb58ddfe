//! The umpire's rulings in archives: a `ruling_recorded` replays, audits
//! and re-runs clean in every game (the game's fold passes over it), its
//! text kept exactly, markup and all; a seat's ruling, a blank one, one
//! too long and one after the game's end are refused by the replay
//! (`docs/rules/umpire.md`).

use serde_json::json;
use umpire_archive::{audit, replay, what_if, Archive, Cause};
use umpire_domain::rulings::MAX_RULING_CHARS;

use crate::support::{first_action_seq, rechain, registry, simulated, GAMES};

/// Text a reader must show as text: markup, quotes, a line break.
const UNSAFE_TEXT: &str = "<script>alert(\"ruled\")</script> & the card stays;\nplay on.";

/// `archive` with `actor`'s ruling `text` recorded before the event at
/// `before` (1-based; one past the end to add it last), chained again.
fn with_ruling(mut archive: Archive, before: usize, actor: &str, text: &str) -> Archive {
    let index = before - 1;
    let mut ruling = archive.events[index.min(archive.events.len() - 1)].clone();
    let previous = &archive.events[index - 1];
    ruling.event_type = "ruling_recorded".into();
    ruling.payload = json!({"type": "ruling_recorded", "text": text});
    ruling.actor = actor.into();
    ruling.action = json!({"type": "record_ruling", "text": text}).into();
    ruling.decided_at = index as u64;
    ruling.recorded_at = previous.recorded_at.clone();
    ruling.rules_version = previous.rules_version;
    for later in &mut archive.events[index..] {
        later.decided_at += 1;
    }
    archive.events.insert(index, ruling);
    rechain(&mut archive);
    archive
}

/// The seq just after the first action's events (all of one decision).
fn after_first_action(archive: &Archive) -> usize {
    let first = first_action_seq(archive);
    let decided_at = archive.events[first - 1].decided_at;
    archive.events[first - 1..]
        .iter()
        .position(|event| event.decided_at != decided_at)
        .map_or(archive.events.len() + 1, |offset| first + offset)
}

#[test]
fn the_umpires_ruling_replays_audits_and_reruns_clean_in_every_game() {
    for game in GAMES {
        let plain = simulated(game, 0);
        let archive = with_ruling(
            plain.clone(),
            after_first_action(&plain),
            "umpire",
            UNSAFE_TEXT,
        );
        let replayed = replay(&registry(), &archive, |_| {}).unwrap();
        assert!(
            replayed.is_valid(),
            "{game}: {:?}",
            replayed.first_failure()
        );
        // The game's state is the same as without it: one version more.
        assert_eq!(replayed.game.state.version(), plain.version() + 1, "{game}");
        let without = replay(&registry(), &plain, |_| {}).unwrap();
        assert_eq!(
            replayed
                .game
                .state
                .view(&umpire_domain::Viewer::Umpire)
                .unwrap(),
            without
                .game
                .state
                .view(&umpire_domain::Viewer::Umpire)
                .unwrap(),
            "{game}: a ruling changes nothing in play"
        );
        let report = audit(&registry(), &archive).unwrap();
        assert!(
            report.closing.valid,
            "{game}: {:?}",
            report.closing.first_failure
        );
        let rerun = what_if(&registry(), &archive, &json!({})).unwrap();
        assert!(
            rerun.first_difference.is_none(),
            "{game}: re-run under its own options"
        );
        // Through JSON and back, as an export and an import carry it: the
        // text exactly as the umpire wrote it.
        let read = Archive::from_json(&archive.to_json_line()).unwrap();
        assert!(
            replay(&registry(), &read, |_| {}).unwrap().is_valid(),
            "{game}"
        );
        let kept = read
            .events
            .iter()
            .find(|event| event.event_type == "ruling_recorded")
            .expect("the ruling is in the archive");
        assert_eq!(kept.payload["text"], UNSAFE_TEXT, "{game}");
    }
}

fn refused_at(archive: &Archive) -> (u64, Cause) {
    let replayed = replay(&registry(), archive, |_| {}).unwrap();
    let failure = replayed.first_failure().expect("refused");
    (failure.seq, failure.cause)
}

#[test]
fn a_seats_ruling_a_blank_one_a_long_one_and_one_after_the_end_are_refused() {
    let plain = simulated("treeblox", 0);
    let at = after_first_action(&plain);
    let refused = (at as u64, Cause::ActionRefused);
    assert_eq!(
        refused_at(&with_ruling(plain.clone(), at, "seat:dark", "mine")),
        refused
    );
    assert_eq!(
        refused_at(&with_ruling(plain.clone(), at, "umpire", " \n ")),
        refused
    );
    let longest = "é".repeat(MAX_RULING_CHARS);
    let replayed = replay(
        &registry(),
        &with_ruling(plain.clone(), at, "umpire", &longest),
        |_| {},
    );
    assert!(replayed.unwrap().is_valid(), "2,000 characters, not bytes");
    let too_long = format!("{longest}.");
    assert_eq!(
        refused_at(&with_ruling(plain.clone(), at, "umpire", &too_long)),
        refused
    );
    let after_the_end = with_ruling(plain.clone(), plain.events.len() + 1, "umpire", "late");
    assert_eq!(
        refused_at(&after_the_end),
        (plain.events.len() as u64 + 1, Cause::ActionRefused)
    );
}

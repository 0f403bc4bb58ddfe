//! The archive format round trip, and tampered archives refused with the
//! first failing event and why.

use serde_json::json;
use umpire_archive::{replay, Archive, Cause};

use crate::support::{first_action_seq, rechain, registry, simulated, GAMES};

fn first_failure(archive: &Archive) -> (u64, Cause) {
    let replayed = replay(&registry(), archive, |_| {}).expect("the game and options are known");
    let failure = replayed.first_failure().expect("the archive is refused");
    (failure.seq, failure.cause)
}

#[test]
fn every_game_round_trips_through_json_lines_and_replays_cleanly() {
    for game in GAMES {
        let archive = simulated(game, 0);
        let line = archive.to_json_line();
        assert!(!line.contains('\n'), "{game}: one archive is one line");
        let read = Archive::from_json(&line).unwrap();
        assert_eq!(read, archive, "{game}: round trip");
        let replayed = replay(&registry(), &read, |_| {}).unwrap();
        assert!(
            replayed.is_valid(),
            "{game}: {:?}",
            replayed.first_failure()
        );
        assert_eq!(replayed.game.state.version(), archive.version());
    }
}

#[test]
fn an_unknown_format_version_is_refused() {
    let mut value = serde_json::to_value(simulated("treeblox", 0)).unwrap();
    value["format_version"] = json!(99);
    let error = Archive::from_value(value).unwrap_err();
    assert!(error.to_string().contains("99"), "{error}");
}

#[test]
fn a_changed_payload_is_refused_at_its_seq_as_a_hash_mismatch() {
    let mut archive = simulated("draft_cider", 1);
    let seq = first_action_seq(&archive) + 2;
    archive.events[seq - 1].payload["tampered"] = json!(true);
    assert_eq!(first_failure(&archive), (seq as u64, Cause::HashMismatch));
}

#[test]
fn a_changed_payload_with_a_recomputed_chain_is_refused_by_the_replay() {
    let mut archive = simulated("arboretum", 1);
    let seq = first_action_seq(&archive) + 3;
    archive.events[seq - 1].payload["tampered"] = json!(true);
    rechain(&mut archive);
    let replayed = replay(&registry(), &archive, |_| {}).unwrap();
    assert!(
        replayed.chain_break.is_none(),
        "the forger rebuilt the chain"
    );
    let failure = replayed.first_failure().unwrap();
    assert_eq!(
        (failure.seq, failure.cause),
        (seq as u64, Cause::EventDiffers)
    );
    assert_eq!(failure.recorded.as_ref().unwrap()["tampered"], json!(true));
    assert!(failure.expected.as_ref().unwrap().get("tampered").is_none());
}

#[test]
fn a_broken_link_is_refused_at_the_event_whose_prev_hash_is_wrong() {
    let mut archive = simulated("flower_fields", 1);
    archive.events[4].prev_hash = "f".repeat(64);
    assert_eq!(first_failure(&archive), (5, Cause::ChainBroken));
}

#[test]
fn an_event_no_action_explains_is_refused_where_it_stands() {
    let mut archive = simulated("treeblox", 2);
    let seq = first_action_seq(&archive);
    // A copy of the first action's event, slipped in right after it: it
    // claims the same action, which produces one event fewer.
    let copy = archive.events[seq - 1].clone();
    let group_end = archive
        .events
        .iter()
        .position(|e| e.decided_at > copy.decided_at)
        .unwrap();
    archive.events.insert(group_end, copy);
    rechain(&mut archive);
    assert_eq!(
        first_failure(&archive),
        (group_end as u64 + 1, Cause::UnexplainedEvent)
    );
}

#[test]
fn a_setup_event_after_the_setup_is_unexplained() {
    let mut archive = simulated("draft_cider", 3);
    let setup = archive.events[0].clone();
    archive.events.push(setup);
    rechain(&mut archive);
    let last = archive.version();
    assert_eq!(first_failure(&archive), (last, Cause::UnexplainedEvent));
}

#[test]
fn reordered_events_are_refused_at_the_first_moved_event() {
    let original = simulated("arboretum", 4);
    let first = first_action_seq(&original) + 1;
    // Swap two events of different actions, numbers and all: the sequence
    // numbers no longer run in order.
    let mut swapped = original.clone();
    let other = swapped
        .events
        .iter()
        .position(|e| e.decided_at > swapped.events[first - 1].decided_at)
        .unwrap();
    swapped.events.swap(first - 1, other);
    assert_eq!(first_failure(&swapped), (first as u64, Cause::SequenceGap));
    // Renumbered and re-chained, the replay still refuses the first moved event.
    rechain(&mut swapped);
    let (seq, cause) = first_failure(&swapped);
    assert_eq!(seq, first as u64, "{cause:?}");
    assert!(
        matches!(
            cause,
            Cause::UnexplainedEvent
                | Cause::EventDiffers
                | Cause::ActionRefused
                | Cause::MissingEvent
        ),
        "{cause:?}"
    );
}

#[test]
fn a_recorded_setup_that_the_seed_does_not_produce_is_refused() {
    let mut archive = simulated("draft_cider", 5);
    archive.seed = archive.seed.wrapping_add(1);
    let (seq, cause) = first_failure(&archive);
    assert_eq!(cause, Cause::SetupMismatch);
    assert!(seq >= 1 && seq <= first_action_seq(&archive) as u64);
}

#[test]
fn options_that_are_not_stored_validated_are_refused_before_any_event() {
    let mut archive = simulated("draft_cider", 0);
    archive.options = json!({"players": 2});
    let error = replay(&registry(), &archive, |_| {}).err().unwrap();
    assert_eq!((error.seq, error.cause), (0, Cause::InvalidOptions));
}

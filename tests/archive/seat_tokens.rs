//! A seat's token reissued, in archives: the umpire's `seat_token_reissued`
//! replays, audits and re-runs clean in every game (the game's fold passes
//! over it); a seat's reissue, one after the game's end, or one for a seat
//! the game lacks is refused by the replay (`docs/rules/seats.md`).

use serde_json::json;
use umpire_archive::{audit, replay, what_if, Archive, Cause};

use crate::support::{first_action_seq, rechain, registry, simulated, GAMES};

/// `archive` with `actor`'s reissue of `seat` recorded before the event at
/// `before` (1-based; one past the end to add it last), chained again.
fn with_reissue(mut archive: Archive, before: usize, actor: &str, seat: &str) -> Archive {
    let index = before - 1;
    let mut reissue = archive.events[index.min(archive.events.len() - 1)].clone();
    let previous = &archive.events[index - 1];
    reissue.event_type = "seat_token_reissued".into();
    reissue.payload = json!({"type": "seat_token_reissued", "seat": seat});
    reissue.actor = actor.into();
    reissue.action = json!({"type": "reissue_seat_token", "seat": seat}).into();
    reissue.decided_at = index as u64;
    reissue.recorded_at = previous.recorded_at.clone();
    reissue.rules_version = previous.rules_version;
    for later in &mut archive.events[index..] {
        later.decided_at += 1;
    }
    archive.events.insert(index, reissue);
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

fn first_seat(archive: &Archive) -> String {
    let game = registry()
        .get(&archive.game)
        .unwrap()
        .seats(&archive.options)
        .unwrap();
    game[0].clone()
}

#[test]
fn the_umpires_reissue_replays_audits_and_reruns_clean_in_every_game() {
    for game in GAMES {
        let plain = simulated(game, 0);
        let seat = first_seat(&plain);
        let archive = with_reissue(plain.clone(), after_first_action(&plain), "umpire", &seat);
        let replayed = replay(&registry(), &archive, |_| {}).unwrap();
        assert!(
            replayed.is_valid(),
            "{game}: {:?}",
            replayed.first_failure()
        );
        // The game's state is the same as without it: one version more.
        assert_eq!(replayed.game.state.version(), plain.version() + 1, "{game}");
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
        // Through JSON and back, as an export and an import carry it.
        let read = Archive::from_json(&archive.to_json_line()).unwrap();
        assert!(
            replay(&registry(), &read, |_| {}).unwrap().is_valid(),
            "{game}"
        );
    }
}

fn refused_at(archive: &Archive) -> (u64, Cause) {
    let replayed = replay(&registry(), archive, |_| {}).unwrap();
    let failure = replayed.first_failure().expect("refused");
    (failure.seq, failure.cause)
}

#[test]
fn a_seats_reissue_an_unknown_seats_and_one_after_the_end_are_refused() {
    let plain = simulated("treeblox", 0);
    let at = after_first_action(&plain);
    let by_a_seat = with_reissue(plain.clone(), at, "seat:dark", "light");
    assert_eq!(refused_at(&by_a_seat), (at as u64, Cause::ActionRefused));
    let no_such_seat = with_reissue(plain.clone(), at, "umpire", "purple");
    assert_eq!(refused_at(&no_such_seat), (at as u64, Cause::ActionRefused));
    let after_the_end = with_reissue(plain.clone(), plain.events.len() + 1, "umpire", "dark");
    assert_eq!(
        refused_at(&after_the_end),
        (plain.events.len() as u64 + 1, Cause::ActionRefused)
    );
}

#[test]
fn a_reissue_sent_as_an_action_is_refused_by_the_audit_as_the_service_refused_it() {
    for game in GAMES {
        let mut archive = simulated(game, 0);
        let seat = first_seat(&archive);
        archive.rejections.clear();
        for actor in ["umpire".to_string(), format!("seat:{seat}")] {
            archive
                .rejections
                .push(umpire_domain::record::RecordedRejection {
                    at_version: first_action_seq(&archive) as u64 - 1,
                    actor,
                    action: json!({"type": "reissue_seat_token", "seat": seat}),
                    code: umpire_domain::seat_tokens::NOT_AN_ACTION.code.into(),
                    message: umpire_domain::seat_tokens::not_an_action().message,
                    rule: Some(umpire_domain::seat_tokens::NOT_AN_ACTION.rule.into()),
                    rules_version: archive.rules_version,
                    recorded_at: archive.created_at.clone(),
                    repeats: 1,
                });
        }
        let report = audit(&registry(), &archive).unwrap();
        let judged: Vec<_> = report
            .entries
            .iter()
            .filter(|entry| entry.kind == umpire_archive::EntryKind::Rejected)
            .map(|entry| entry.today.as_ref().expect("judged"))
            .collect();
        assert_eq!(judged.len(), 2, "{game}");
        for today in judged {
            assert!(today.agrees, "{game}: {today:?}");
            assert_eq!(
                today
                    .verdict
                    .violation
                    .as_ref()
                    .map(|ruling| &ruling.code[..]),
                Some(umpire_domain::seat_tokens::NOT_AN_ACTION.code),
                "{game}"
            );
        }
        assert_eq!(report.closing.disputed_rejections, 0, "{game}");
        assert!(report.closing.valid, "{game}");
    }
}

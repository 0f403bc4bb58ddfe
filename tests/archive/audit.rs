//! The audit: every action in version order with the views before it,
//! rejected attempts interleaved, divergences found and located.

use serde_json::json;
use umpire_archive::{audit, Archive, Cause, EntryKind};

use crate::support::{first_action_seq, rechain, registry, simulated, GAMES};

/// A simulated game with refused attempts in it.
fn game_with_rejections(game: &str) -> Archive {
    (0..200)
        .map(|index| simulated(game, index))
        .find(|archive| archive.rejections.len() >= 2)
        .unwrap_or_else(|| panic!("no {game} game with rejections in 200"))
}

#[test]
fn rejected_attempts_are_interleaved_at_their_versions_with_their_rulings() {
    for game in GAMES {
        let archive = game_with_rejections(game);
        let report = audit(&registry(), &archive).unwrap();
        assert!(
            report.closing.valid,
            "{game}: {:?}",
            report.closing.first_failure
        );
        assert!(report.closing.chain.intact);
        // Every action and every rejection, in version order.
        let accepted = report
            .entries
            .iter()
            .filter(|e| e.kind == EntryKind::Accepted)
            .count();
        let rejected = report
            .entries
            .iter()
            .filter(|e| e.kind == EntryKind::Rejected)
            .count();
        assert_eq!(rejected, archive.rejections.len(), "{game}");
        assert_eq!(
            accepted + 1,
            umpire_archive::replay::groups(&archive.events).len(),
            "{game}"
        );
        let versions: Vec<u64> = report.entries.iter().map(|e| e.at_version).collect();
        let mut sorted = versions.clone();
        sorted.sort();
        assert_eq!(versions, sorted, "{game}: entries are in version order");
        let seats = registry()
            .get(game)
            .unwrap()
            .seats(&archive.options)
            .unwrap();
        for (index, entry) in report.entries.iter().enumerate() {
            if entry.kind != EntryKind::Rejected {
                continue;
            }
            // The refused attempt comes before the action that moved the game on.
            let next = &report.entries[index + 1..]
                .iter()
                .find(|e| e.kind == EntryKind::Accepted)
                .expect("the game went on");
            assert!(next.at_version >= entry.at_version);
            let violation = entry.violation.as_ref().unwrap();
            assert!(
                violation.code.starts_with(game),
                "{game}: {}",
                violation.code
            );
            assert!(violation.rule.is_some());
            // Linked to its section on the served rule page.
            let url = violation.rule_url.as_deref().unwrap_or_default();
            assert!(
                url.starts_with(&format!("/rules/{game}#s")),
                "{game}: {url}"
            );
            let today = entry.today.as_ref().unwrap();
            assert!(!today.verdict.accepted && today.agrees, "{game}: {today:?}");
            // The state before, as a spectator and as every seat saw it.
            assert!(entry.before.contains_key("spectator"));
            for seat in &seats {
                assert!(
                    entry.before.contains_key(&format!("seat:{seat}")),
                    "{game}: {seat}"
                );
            }
        }
        assert_eq!(report.closing.disputed_rejections, 0);
        assert_eq!(report.closing.score, Some(replayed_summary(&archive)));
    }
}

fn replayed_summary(archive: &Archive) -> umpire_domain::ScoreSummary {
    umpire_archive::replay(&registry(), archive, |_| {})
        .unwrap()
        .game
        .state
        .summary()
}

#[test]
fn a_rejection_todays_rules_would_accept_is_counted_as_disputed() {
    let mut archive = game_with_rejections("treeblox");
    // Claim that the accepted first action had been refused at its version.
    let first = &archive.events[first_action_seq(&archive) - 1];
    archive
        .rejections
        .push(umpire_domain::record::RecordedRejection {
            at_version: first.decided_at,
            actor: first.actor.clone(),
            action: serde_json::Value::clone(&first.action),
            code: "treeblox.not_your_turn".into(),
            message: "made up".into(),
            rule: None,
            rules_version: 1,
            recorded_at: first.recorded_at.clone(),
            repeats: 1,
        });
    let report = audit(&registry(), &archive).unwrap();
    assert_eq!(report.closing.disputed_rejections, 1);
    assert!(
        report.closing.valid,
        "a disputed rejection is not a broken log"
    );
}

#[test]
fn the_audit_reports_a_divergence_with_its_version_and_stops_judging_there() {
    let mut archive = simulated("flower_fields", 2);
    let seq = first_action_seq(&archive) + 4;
    archive.events[seq - 1].payload["forged"] = json!(1);
    rechain(&mut archive);
    let report = audit(&registry(), &archive).unwrap();
    assert!(!report.closing.valid);
    assert!(report.closing.chain.intact, "the forger rebuilt the chain");
    let divergence = report.closing.divergence.as_ref().unwrap();
    assert_eq!(divergence.seq, seq as u64);
    assert_eq!(divergence.cause, Cause::EventDiffers);
    assert_eq!(divergence.version, archive.events[seq - 1].decided_at);
    let at = report
        .entries
        .iter()
        .position(|e| e.divergence.is_some())
        .unwrap();
    assert_eq!(report.entries[at].at_version, divergence.version);
    assert!(!report.entries[at].today.as_ref().unwrap().agrees);
    assert!(report.entries[at + 1..]
        .iter()
        .all(|e| e.kind == EntryKind::Unchecked));
}

#[test]
fn the_audit_reports_an_untouched_chain_break_by_seq() {
    let mut archive = simulated("draft_cider", 2);
    archive.events[6].payload["forged"] = json!(1);
    let report = audit(&registry(), &archive).unwrap();
    assert!(!report.closing.valid && !report.closing.chain.intact);
    let first = report.closing.first_failure.unwrap();
    assert_eq!((first.seq, first.cause), (7, Cause::HashMismatch));
}

/// An action the game cannot read is refused over HTTP with the code
/// `invalid_action` (kept with the refusals), and the audit rules it the
/// same way today: it agrees rather than being counted as disputed.
#[test]
fn an_unreadable_action_refused_as_invalid_is_upheld_by_the_audit() {
    let mut archive = game_with_rejections("treeblox");
    let first = &archive.events[first_action_seq(&archive) - 1];
    archive
        .rejections
        .push(umpire_domain::record::RecordedRejection {
            at_version: first.decided_at,
            actor: first.actor.clone(),
            action: serde_json::json!({"type": "no_such_action"}),
            code: "invalid_action".into(),
            message: "The action is not an action of treeblox.".into(),
            rule: None,
            rules_version: 1,
            recorded_at: first.recorded_at.clone(),
            repeats: 1,
        });
    let report = audit(&registry(), &archive).unwrap();
    assert_eq!(report.closing.disputed_rejections, 0);
}

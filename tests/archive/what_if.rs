//! What-if: the same actions under other options.

use serde_json::json;
use umpire_archive::what_if;

use crate::support::{registry, simulated};

#[test]
fn the_same_options_change_nothing() {
    let archive = simulated("draft_cider", 0);
    let report = what_if(&registry(), &archive, &json!({})).unwrap();
    assert!(
        report.first_difference.is_none(),
        "{:?}",
        report.first_difference
    );
    assert!(!report.setup_differs);
    assert!(report.refused.is_empty());
    assert!(report.changes.values().all(|c| c.delta == 0));
    assert!(!report.winners_change);
}

#[test]
fn easy_mode_changes_the_score_from_the_first_bad_batch_card_on() {
    // Easy mode: the Bad batch scores 0 per card instead of −1 (§3).
    let mut found = false;
    for index in 0..20 {
        let archive = simulated("draft_cider", index);
        let report = what_if(&registry(), &archive, &json!({"easy": true})).unwrap();
        assert_eq!(report.alternative_options["easy"], json!(true));
        assert!(report.refused.is_empty(), "easy mode refuses no action");
        let Some(difference) = &report.first_difference else {
            assert!(report.changes.values().all(|c| c.delta == 0));
            continue;
        };
        found = true;
        assert_eq!(difference.what, "score");
        assert_eq!(
            difference.recorded.verdict.events,
            difference.alternative.verdict.events
        );
        assert_ne!(difference.recorded.score, difference.alternative.score);
        // The version is where the provisional scores first part: replaying
        // the log up to just before it, both games scored the same.
        let earlier = what_if(
            &registry(),
            &truncated(&archive, difference.version),
            &json!({"easy": true}),
        )
        .unwrap();
        assert!(
            earlier.first_difference.is_none(),
            "{:?}",
            earlier.first_difference
        );
        assert!(report.changes.values().any(|c| c.delta != 0));
        for change in report.changes.values() {
            assert!(change.delta >= 0, "easy mode only removes penalties");
            assert_eq!(change.alternative - change.recorded, change.delta);
        }
    }
    assert!(found, "no game in 20 put a card in the Bad batch");
}

fn truncated(archive: &umpire_archive::Archive, version: u64) -> umpire_archive::Archive {
    let mut archive = archive.clone();
    archive.events.truncate(version as usize);
    archive.rejections.clear();
    archive
}

#[test]
fn a_what_if_on_a_tampered_log_is_refused() {
    let mut archive = simulated("treeblox", 0);
    archive.events[2].payload["x"] = json!(1);
    assert!(what_if(&registry(), &archive, &json!({})).is_err());
}

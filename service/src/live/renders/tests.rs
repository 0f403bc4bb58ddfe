//! What a followed game's streams share: kept, let go and charged.

use super::*;

fn status(phase: &str) -> StatusJson {
    StatusJson {
        phase: phase.to_string(),
        finished: false,
        to_act: vec!["red".to_string()],
        clock: None,
    }
}

/// Given the events a decision made, kept as decided from some version
/// on, when a stream asks for those events decoded, then it finds them
/// decoded already, and the others still to be decoded.
#[test]
fn events_kept_as_decided_are_handed_out_decoded() {
    let registry = umpire_games::registry();
    let rules = registry.get("arboretum").unwrap();
    let options = rules.validate_options(&serde_json::Value::Null).unwrap();
    let mut state = rules.new_match(&options).unwrap();
    for event in rules.setup(&options, 1).unwrap() {
        state.apply_json(&event).unwrap();
    }
    let actor = umpire_domain::Actor::Seat(state.status().to_act[0].clone());
    let action = state.legal_actions(&actor).unwrap()[0].clone();
    let decided = state.decide_and_apply(&actor, &action).unwrap().decoded;
    assert!(!decided.is_empty());
    let mut renders = Renders::default();
    renders.keep_decided(10, &decided);
    let after = 10 + decided.len() as u64;
    assert!((10..after).all(|seq| renders.decoded(seq).is_decoded()));
    assert!(!renders.decoded(after).is_decoded());
    assert!(!renders.decoded(9).is_decoded());
    // Kept already: left as it is.
    renders.keep_decided(9, &decided);
    assert!(!renders.decoded(9).is_decoded());
    assert_eq!(renders.decoded.len(), decided.len() + 2);
}

/// Given events asked whether they are public in and out of order,
/// each is asked of the game once while it is kept, the answer is the
/// game's, and one let go for newer ones is asked again.
#[test]
fn whether_an_event_is_public_is_asked_of_the_game_once_while_kept() {
    let mut renders = Renders::default();
    let mut asked = Vec::new();
    for seq in [5, 6, 7, 3, 6, 5, 8, 3, 4, 7, 8] {
        let public = renders.is_public(seq, || {
            asked.push(seq);
            seq % 2 == 0
        });
        assert_eq!(public, seq % 2 == 0, "event {seq}");
    }
    assert_eq!(asked, [5, 6, 7, 3, 8, 4]);
    for seq in 100..100 + DECODED_KEPT as u64 {
        renders.is_public(seq, || true);
    }
    assert!(!renders.is_public(5, || false), "let go, asked again");
    assert!(renders.is_public(150, || unreachable!("kept")));
}

/// What the renders hold, summed from scratch: what is charged.
fn summed(renders: &Renders) -> usize {
    renders
        .kept
        .iter()
        .map(|(_, _, json)| render_bytes(json))
        .chain(renders.statuses.iter().map(|(_, s)| status_bytes(s)))
        .chain(renders.status_texts.iter().map(|(_, t)| render_bytes(t)))
        .sum::<usize>()
        + renders.decoded.len() * 512
        + renders.publics.len() * 16
        + renders
            .head_status
            .as_ref()
            .map_or(0, |(_, s)| status_bytes(s))
        + renders.pushed.bytes()
}

/// Given renderings, statuses and their JSON kept, replaced and let go
/// (a newer version, a gap, the oldest beyond the limit), the memory
/// budget is charged what they hold, counted as they come and go.
#[test]
fn the_charge_follows_what_is_kept_as_it_comes_and_goes() {
    let budget = crate::metrics::Metrics::unregistered().memory_budget(1 << 30);
    let mut renders = Renders::charging(budget.clone());
    let text = |n: u64| -> Arc<str> { format!("{{\"n\":{}}}", "x".repeat(n as usize)).into() };
    for seq in 1..=700u64 {
        renders.keep_status(seq, &Arc::new(status(&"p".repeat(seq as usize % 7))));
        renders.keep_status_text(seq, &text(seq % 11));
        renders.keep(seq / 10, seq, &Audience::Public, &text(seq % 13));
        renders.keep(seq / 10, seq, &Audience::Hidden, &text(seq % 5));
        renders.decoded(seq);
        if seq == 500 {
            // A gap starts the statuses over.
            renders.keep_status(seq + 2, &Arc::new(status("gap")));
        }
        assert_eq!(
            budget.charged(Charge::Renders),
            summed(&renders),
            "after {seq}"
        );
    }
    // Held up to the limit before the gap, from the gap on after it.
    assert_eq!(renders.statuses.first().map(|(seq, _)| *seq), Some(502));
    drop(renders);
    assert_eq!(budget.charged(Charge::Renders), 0);
}

/// Given statuses kept after events 3..=5, a run from a kept event is
/// shared as far as it is kept (a run reaching past them stops at 5);
/// a run from an event not kept shares none; and a gap starts over.
#[test]
fn the_statuses_after_the_latest_events_are_shared_as_far_as_they_run() {
    let mut renders = Renders::default();
    for seq in 3..=5 {
        renders.keep_status(seq, &Arc::new(status(&format!("after {seq}"))));
    }
    renders.keep_status(4, &Arc::new(status("kept already")));
    let after = |seqs: &[u64]| -> Vec<Arc<StatusJson>> {
        seqs.iter()
            .map(|seq| Arc::new(status(&format!("after {seq}"))))
            .collect()
    };
    assert_eq!(renders.statuses(4, 5), after(&[4, 5]));
    assert_eq!(renders.statuses(3, 3), after(&[3]));
    assert_eq!(renders.statuses(3, 4), after(&[3, 4]));
    assert_eq!(renders.statuses(4, 6), after(&[4, 5]));
    assert_eq!(renders.statuses(2, 4), after(&[]));
    assert_eq!(renders.statuses(6, 7), after(&[]));

    renders.keep_status(9, &Arc::new(status("after 9")));
    assert_eq!(renders.statuses(3, 3), after(&[]));
    assert_eq!(renders.statuses(9, 12), after(&[9]));

    for seq in 10..10 + STATUSES_KEPT as u64 {
        renders.keep_status(seq, &Arc::new(status("later")));
    }
    assert_eq!(renders.statuses.len(), STATUSES_KEPT);
    assert_eq!(renders.statuses(9, 9), after(&[]));
}

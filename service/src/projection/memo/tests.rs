//! One memo per event: found once, shared, let go oldest first, counted.

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
    let mut memos = EventMemos::default();
    memos.keep_decided(10, &decided);
    let after = 10 + decided.len() as u64;
    assert!((10..after).all(|seq| memos.decoded(seq).is_decoded()));
    assert!(!memos.decoded(after).is_decoded());
    assert!(!memos.decoded(9).is_decoded());
    // Asked for before it was decided: kept as decided now.
    memos.keep_decided(9, &decided);
    assert!(memos.decoded(9).is_decoded());
    assert_eq!(memos.len(), decided.len() + 2);
}

/// Given events asked whether they are public in and out of order,
/// each is asked of the game once while it is remembered, the answer is
/// the game's, and one let go for newer ones is asked again.
#[test]
fn whether_an_event_is_public_is_asked_of_the_game_once_while_remembered() {
    let mut memos = EventMemos::default();
    let mut asked = Vec::new();
    for seq in [5, 6, 7, 3, 6, 5, 8, 3, 4, 7, 8] {
        let public = memos.is_public(seq, || {
            asked.push(seq);
            seq % 2 == 0
        });
        assert_eq!(public, seq % 2 == 0, "event {seq}");
    }
    assert_eq!(asked, [5, 6, 7, 3, 8, 4]);
    let enough = (REMEMBERED_BYTES / MEMO_BYTES) as u64 + 1;
    for seq in 100..100 + enough {
        memos.is_public(seq, || true);
    }
    assert!(!memos.is_public(5, || false), "let go, asked again");
    assert!(memos.is_public(100 + enough - 1, || unreachable!("remembered")));
    assert!(memos.bytes() <= REMEMBERED_BYTES);
}

/// Given statuses kept after events 3..=5, a run from a kept event is
/// shared as far as it is kept (a run reaching past them stops at 5);
/// a run from an event not kept shares none, nor one across a gap.
#[test]
fn the_statuses_after_the_latest_events_are_shared_as_far_as_they_run() {
    let mut memos = EventMemos::default();
    for seq in 3..=5 {
        memos.keep_status(seq, &Arc::new(status(&format!("after {seq}"))));
    }
    memos.keep_status(4, &Arc::new(status("kept already")));
    let after = |seqs: &[u64]| -> Vec<Arc<StatusJson>> {
        seqs.iter()
            .map(|seq| Arc::new(status(&format!("after {seq}"))))
            .collect()
    };
    assert_eq!(memos.statuses(4, 5), after(&[4, 5]));
    assert_eq!(memos.statuses(3, 3), after(&[3]));
    assert_eq!(memos.statuses(3, 4), after(&[3, 4]));
    assert_eq!(memos.statuses(4, 6), after(&[4, 5]));
    assert_eq!(memos.statuses(2, 4), after(&[]));
    assert_eq!(memos.statuses(6, 7), after(&[]));
    assert_eq!(memos.newest_status(), Some(5));

    // Event 6 remembered for something else: no status, the run stops.
    memos.is_public(6, || true);
    memos.keep_status(7, &Arc::new(status("after 7")));
    assert_eq!(memos.statuses(4, 7), after(&[4, 5]));
    assert_eq!(memos.statuses(7, 9), vec![Arc::new(status("after 7"))]);
    assert_eq!(memos.newest_status(), Some(7));
}

/// Given renderings kept for two audiences, each is found under its own;
/// one judged at a newer version lets the older ones go, and one judged
/// at an older version than those kept is not kept.
#[test]
fn renderings_are_kept_per_audience_for_the_newest_version_only() {
    let mut memos = EventMemos::default();
    let json = |text: &str| -> Arc<str> { text.into() };
    memos.keep_rendering(10, 9, &Audience::Public, &json("public"));
    memos.keep_rendering(10, 9, &Audience::Hidden, &json("hidden"));
    assert_eq!(
        memos.rendering(10, 9, &Audience::Public),
        Some(json("public"))
    );
    assert_eq!(
        memos.rendering(10, 9, &Audience::Hidden),
        Some(json("hidden"))
    );
    assert_eq!(memos.rendering(11, 9, &Audience::Public), None);
    memos.keep_rendering(11, 10, &Audience::Public, &json("newer"));
    assert_eq!(memos.rendering(10, 9, &Audience::Public), None);
    assert_eq!(
        memos.rendering(11, 10, &Audience::Public),
        Some(json("newer"))
    );
    memos.keep_rendering(10, 9, &Audience::Public, &json("older"));
    assert_eq!(memos.rendering(11, 9, &Audience::Public), None);
    assert_eq!(memos.bytes(), memos.summed());
}

/// Given memos filled with statuses, their JSON, renderings at versions
/// moving on and decoded events, past the cap, what the memos say they
/// hold is what they hold, and never more than the cap.
#[test]
fn the_count_follows_what_is_kept_as_it_comes_and_goes() {
    let mut memos = EventMemos::default();
    let text = |n: u64| -> Arc<str> { format!("{{\"n\":{}}}", "x".repeat(n as usize * 40)).into() };
    for seq in 1..=2000u64 {
        memos.keep_status(seq, &Arc::new(status(&"p".repeat(seq as usize % 7))));
        memos.keep_status_text(seq, &text(seq % 11));
        memos.keep_rendering(seq / 10, seq, &Audience::Public, &text(seq % 13));
        memos.keep_rendering(seq / 10, seq, &Audience::Hidden, &text(seq % 5));
        memos.decoded(seq);
        assert_eq!(memos.bytes(), memos.summed(), "after {seq}");
        assert!(memos.bytes() <= REMEMBERED_BYTES, "after {seq}");
    }
    assert_eq!(memos.newest_status(), Some(2000));
    assert!(memos.statuses(1, 1).is_empty(), "the oldest let go");
}

/// Given memos of consecutive events, of events with gaps between them,
/// and none, each place found for an event, kept or not, is the one a
/// binary search over them finds: the guess that they are consecutive
/// never misplaces one that is not.
#[test]
fn an_event_is_placed_where_a_search_would_place_it() {
    for kept in [
        vec![],
        vec![4],
        vec![3, 4, 5, 6],
        vec![3, 5, 6, 9],
        vec![1, 2, 7, 8, 9],
    ] {
        let mut memos = EventMemos::default();
        for &seq in &kept {
            memos.is_public(seq, || true);
        }
        for seq in 0..12 {
            assert_eq!(
                memos.place(seq),
                kept.binary_search(&seq),
                "event {seq} among {kept:?}"
            );
        }
    }
}

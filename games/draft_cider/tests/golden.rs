//! Golden replays of whole games: events in, umpire view and score sheet out,
//! recorded under `tests/data/draft_cider/`. The games played today must give
//! those files byte for byte. Re-bless with
//! `UPDATE_EXPECT=1 cargo test -p umpire-draft-cider golden` and review the diff.

use expect_test::{expect_file, ExpectFile};
use serde_json::json;
use umpire_domain::testing::{fold, umpire_view_json, Table};
use umpire_domain::{Actor, Game, Seat, SeatIndex, Viewer};
use umpire_draft_cider::score::score_sheet;
use umpire_draft_cider::{DraftCider, DraftCiderAction, DraftCiderOptions};

fn actor_name(actor: &Actor<SeatIndex>) -> String {
    match actor {
        Actor::Seat(seat) => seat.name(),
        Actor::Umpire => "umpire".to_string(),
    }
}

/// A deterministic greedy player: the legal pick that most raises its own
/// provisional total, the first listed on ties. The umpire times out the
/// picks listed in `timeouts` (by pick number).
fn play_greedy(
    options: DraftCiderOptions,
    seed: u64,
    timeouts: &[usize],
) -> (Table<DraftCider>, Vec<(Actor<SeatIndex>, DraftCiderAction)>) {
    let mut table = Table::<DraftCider>::new(options, seed);
    let mut actions = Vec::new();
    let mut pick_number = 0;
    while !table.state.finished {
        let picker = table.state.picker;
        let (actor, action) = if timeouts.contains(&pick_number) {
            (Actor::Umpire, DraftCiderAction::Timeout { seat: picker })
        } else {
            let legal = DraftCider::legal_actions(&table.state, Actor::Seat(picker));
            let mut best: Option<(i64, DraftCiderAction)> = None;
            for action in legal {
                let mut after = table.state.clone();
                for event in
                    DraftCider::decide(&table.state, Actor::Seat(picker), &action).expect("legal")
                {
                    DraftCider::apply(&mut after, &event);
                }
                let total = score_sheet(&after).seats[usize::from(picker.0)].total;
                if best
                    .as_ref()
                    .is_none_or(|(best_total, _)| total > *best_total)
                {
                    best = Some((total, action));
                }
            }
            (Actor::Seat(picker), best.expect("a legal pick").1)
        };
        table.accepts(actor, action.clone());
        actions.push((actor, action));
        pick_number += 1;
    }
    (table, actions)
}

fn check_golden(golden: ExpectFile, options: DraftCiderOptions, seed: u64, timeouts: &[usize]) {
    let (table, actions) = play_greedy(options.clone(), seed, timeouts);
    // Events in, view and score out: folded afresh, not the play's state.
    let state = fold::<DraftCider>(&options, &table.events);
    assert!(DraftCider::status(&state).finished);
    let document = json!({
        "game": "draft_cider",
        "options": options,
        "seed": seed,
        "actions": actions.iter().map(|(actor, action)| json!({"actor": actor_name(actor), "action": action})).collect::<Vec<_>>(),
        "events": table.events,
        "view": umpire_view_json::<DraftCider>(&state),
        "score": DraftCider::score(&state, Viewer::Umpire),
    });
    // Today's deterministic player still plays the same game, and the
    // rules fold it to the same view and score.
    golden.assert_eq(&(serde_json::to_string_pretty(&document).expect("json") + "\n"));
}

#[test]
fn a_whole_three_player_game_replays_to_its_golden_state_and_score() {
    let options = DraftCiderOptions {
        players: 3,
        first_picker: 1,
        ..DraftCiderOptions::default()
    };
    check_golden(
        expect_file!["../../../tests/data/draft_cider/three_players_classic.json"],
        options,
        20_240_604,
        &[4, 13],
    );
}

#[test]
fn a_whole_solo_game_replays_to_its_golden_state_and_score() {
    let options = DraftCiderOptions {
        players: 1,
        ..DraftCiderOptions::default()
    };
    check_golden(
        expect_file!["../../../tests/data/draft_cider/solo_classic.json"],
        options,
        4_004,
        &[],
    );
}

//! Random games as archives, and the tampering helpers the tests share.

use umpire_archive::{simulate_one, Archive};
use umpire_domain::Registry;

pub const GAMES: [&str; 4] = ["arboretum", "treeblox", "draft_cider", "flower_fields"];

pub fn registry() -> Registry {
    umpire_games::registry()
}

/// Game `index` of the run with seed 7: the same game every time.
pub fn simulated(game: &str, index: u64) -> Archive {
    simulate_one(&registry(), game, &serde_json::Value::Null, 7, index, 5_000)
        .unwrap_or_else(|e| panic!("simulating {game} #{index}: {e}"))
}

/// Renumbers the events and recomputes every hash from the first event, as
/// a forger who knows the scheme would: the chain holds again, so only the
/// replay can catch the change.
pub fn rechain(archive: &mut Archive) {
    let game_id = archive.game_id.to_string();
    let mut prev = umpire_domain::chain::GENESIS_HASH.to_string();
    for (index, event) in archive.events.iter_mut().enumerate() {
        event.seq = index as u64 + 1;
        event.prev_hash = prev.clone();
        event.hash = event.chain_link(&game_id).hash();
        prev = event.hash.clone();
    }
}

/// The seq of the first event caused by an action (not the setup).
pub fn first_action_seq(archive: &Archive) -> usize {
    archive
        .events
        .iter()
        .position(|e| e.actor != "system")
        .expect("the game has actions")
        + 1
}

/// A refusal this service could have recorded in `archive`: red sent a
/// start choice (told apart by `n`) at `at_version` as `actor`.
#[allow(
    dead_code,
    reason = "this file is a module of three test binaries; the service's has no use for it"
)]
pub fn refusal(
    archive: &Archive,
    actor: &str,
    at_version: u64,
    n: u64,
) -> umpire_domain::record::RecordedRejection {
    umpire_domain::record::RecordedRejection {
        at_version,
        actor: actor.into(),
        action: serde_json::json!({"type": "choose_start", "seat": "red", "n": n}),
        code: "arboretum.not_your_turn".into(),
        message: "It is not your turn.".into(),
        rule: Some("arboretum §3".into()),
        rules_version: archive.rules_version,
        recorded_at: archive.created_at.clone(),
        repeats: 1,
    }
}

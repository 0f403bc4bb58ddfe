//! The hub's announcements, held back and passed on.

use super::*;
use crate::live::StreamLimits;

fn test_live() -> Live {
    let metrics = Metrics::unregistered();
    let limits = StreamLimits {
        max_open: 4,
        ..StreamLimits::default()
    };
    Live::new(limits, metrics.memory_budget(1 << 20), metrics)
}

fn appended(game_id: Uuid, version: u64) -> Appended {
    Appended { game_id, version }
}

/// Given a followed game with an append of this instance under way,
/// when the store announces a version, then the streams are not woken
/// until the append is done; without one, they are woken at once.
#[test]
fn the_stores_announcements_wait_for_this_instances_append_under_way() {
    let live = test_live();
    let game = Uuid::from_u128(7);
    let mut subscription = live.subscribe(game, &Viewer::Spectator);

    let own = live.appending(game);
    live.hub.announce(appended(game, 3), Source::Store);
    assert!(!subscription.changes.has_changed().unwrap());
    drop(own);
    assert!(subscription.changes.has_changed().unwrap());
    assert_eq!(subscription.changes.borrow_and_update().version, 3);

    live.hub.announce(appended(game, 4), Source::Store);
    assert_eq!(subscription.changes.borrow_and_update().version, 4);
}

/// The append's own announcement wakes the streams while it is under
/// way, and what the store held back is not announced again when it is
/// not newer.
#[test]
fn this_instances_announcement_wakes_at_once_and_the_held_one_adds_nothing() {
    let live = test_live();
    let game = Uuid::from_u128(8);
    let mut subscription = live.subscribe(game, &Viewer::Spectator);

    let own = live.appending(game);
    live.hub.announce(appended(game, 5), Source::Store);
    live.hub.announce(appended(game, 5), Source::Instance);
    assert_eq!(subscription.changes.borrow_and_update().version, 5);
    drop(own);
    assert!(!subscription.changes.has_changed().unwrap());
}

/// An append to a game nobody follows is not counted, and a guard
/// whose game came to be followed meanwhile leaves the count alone.
#[test]
fn appends_to_unfollowed_games_hold_nothing_back() {
    let live = test_live();
    let game = Uuid::from_u128(9);
    let own = live.appending(game);
    let mut subscription = live.subscribe(game, &Viewer::Spectator);
    live.hub.announce(appended(game, 2), Source::Store);
    assert_eq!(subscription.changes.borrow_and_update().version, 2);
    drop(own);
    assert_eq!(live.hub.games().get(&game).map(|f| f.own_appends), Some(0));
}

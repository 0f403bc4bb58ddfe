//! A page of `/events` as the service writes it: byte for byte what serde
//! writes of the same page, for every viewer, hidden information and all.

use umpire_domain::Viewer;

use crate::streams::{new_game, play_first_legal};

/// Given games part played (Flower Fields, whose seats each hide their own
/// hand, and Arboretum), when each viewer reads pages of their logs of
/// several sizes and places (the first event, a few, past the end, the
/// last ones, none), then the page written piece by piece is serde's of
/// the same page, and the seats' and the spectators' pages differ where
/// an event is hidden from one of them.
#[tokio::test]
async fn a_page_of_events_is_written_as_serde_writes_it_for_every_viewer() {
    for (game, seats) in [("flower_fields", 5), ("arboretum", 2)] {
        let (_store, service, created) = new_game(game, 7).await;
        for _ in 0..12 {
            assert!(
                play_first_legal(&service, &created).await,
                "{game} still playing"
            );
        }
        let mut viewers = vec![Viewer::Spectator, Viewer::Umpire];
        viewers.extend(
            created
                .seat_tokens
                .keys()
                .map(|seat| Viewer::Seat(seat.clone())),
        );
        assert_eq!(viewers.len(), seats + 2, "{game}");
        let version = service
            .events(created.id, &Viewer::Umpire, 0, 1)
            .await
            .unwrap()
            .version;
        let mut hidden = 0;
        for viewer in &viewers {
            for (after, limit) in [(0, 1), (0, 7), (3, 1000), (version - 2, 5), (version, 5)] {
                let written = service
                    .events_json(created.id, viewer, after, limit)
                    .await
                    .expect("a page written");
                let page = service
                    .events(created.id, viewer, after, limit)
                    .await
                    .expect("a page");
                hidden += page
                    .events
                    .iter()
                    .filter(|e| e.event_type == "hidden")
                    .count();
                assert_eq!(
                    written.0,
                    serde_json::to_string(&page).unwrap(),
                    "{game}, {viewer:?}, after {after}, limit {limit}"
                );
            }
        }
        if game == "flower_fields" {
            assert!(hidden > 0, "some events are hidden from some viewer");
        }
    }
}

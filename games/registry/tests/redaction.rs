//! Redacting one decoded event for many viewers (what a game's live streams
//! do) shows each viewer exactly what redacting the stored event for that
//! viewer alone shows.

use serde_json::Value;
use umpire_domain::erased::{event_type, DecodedEvent, Shown, ShownText};
use umpire_domain::{DynMatch, Viewer};

use crate::decide_fuzz::{played, GAMES};

fn everyone(state: &dyn DynMatch, game: &str) -> Vec<Viewer<String>> {
    let registry = umpire_games::registry();
    let seats = registry.get(game).unwrap().seats(&Value::Null).unwrap();
    let mut viewers = vec![Viewer::Spectator, Viewer::Umpire];
    viewers.extend(seats.into_iter().map(Viewer::Seat));
    assert!(state.version() > 0);
    viewers
}

#[test]
fn an_event_decoded_once_is_redacted_for_each_viewer_as_alone() {
    for game in GAMES {
        for seed in 0..3 {
            // Judged mid-game and at the end, when more may be shown.
            for steps in [40, 400] {
                let (now, events) = played(game, seed, steps);
                let viewers = everyone(now.as_ref(), game);
                let mut hidden = 0;
                for event in &events {
                    let decoded = DecodedEvent::default();
                    for viewer in &viewers {
                        let alone = now.redact_event(event, viewer).unwrap();
                        let shared = match now.show_event(event, &decoded, viewer).unwrap() {
                            Shown::Whole => Some(event.clone()),
                            Shown::Redacted(redacted) => Some(redacted),
                            Shown::Hidden => None,
                        };
                        assert_eq!(shared, alone, "{game} seed {seed}: {event} for {viewer:?}");
                        // As text: the JSON of the same, and its type.
                        let text = match now.show_event_text(event, &decoded, viewer).unwrap() {
                            ShownText::Whole => Some((event.to_string(), event_type(event).into())),
                            ShownText::Redacted { json, event_type } => {
                                Some((json.get().to_string(), event_type))
                            }
                            ShownText::Hidden => None,
                        };
                        let expected = alone
                            .as_ref()
                            .map(|shown| (shown.to_string(), event_type(shown).to_string()));
                        assert_eq!(text, expected, "{game} seed {seed}: {event} for {viewer:?}");
                        hidden += usize::from(alone.is_none());
                    }
                }
                if game == "flower_fields" && steps == 40 {
                    // The sharing is exercised where it matters: events
                    // some viewers may not see.
                    assert!(hidden > 0, "{game} seed {seed}: nothing hidden");
                }
            }
        }
    }
}

#[test]
fn an_event_decoded_for_another_game_is_refused_not_misread() {
    let (arboretum, arboretum_events) = played("arboretum", 1, 10);
    let (fields, fields_events) = played("flower_fields", 1, 10);
    let seat = everyone(arboretum.as_ref(), "arboretum").pop().unwrap();
    let private = |state: &dyn DynMatch, events: &[Value]| {
        events
            .iter()
            .find(|event| !state.is_public_event(event))
            .cloned()
            .expect("an event that is not public")
    };
    let fields_event = private(fields.as_ref(), &fields_events);
    let arboretum_event = private(arboretum.as_ref(), &arboretum_events);
    let decoded = DecodedEvent::default();
    fields
        .show_event(&fields_event, &decoded, &Viewer::Spectator)
        .unwrap();
    // Filled with a Flower Fields event: Arboretum cannot read it as one of
    // its own, and says so rather than redacting something else.
    let refused = arboretum.show_event(&arboretum_event, &decoded, &seat);
    assert!(refused.is_err(), "{refused:?}");
    // A fresh one redacts the same event.
    assert!(arboretum
        .show_event(&arboretum_event, &DecodedEvent::default(), &seat)
        .is_ok());
}

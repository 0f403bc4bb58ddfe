//! Helpers shared by the integration tests: card literals and hand-made positions.

use umpire_domain::testing::Table;
use umpire_domain::SeatIndex;
use umpire_draft_cider::cards::full_deck;
use umpire_draft_cider::{
    DraftCider, DraftCiderBatch, DraftCiderCard, DraftCiderEvent, DraftCiderOptions,
};

pub fn card(text: &str) -> DraftCiderCard {
    text.parse().unwrap_or_else(|error| panic!("{error}"))
}

pub fn cards(texts: &[&str]) -> Vec<DraftCiderCard> {
    texts.iter().map(|text| card(text)).collect()
}

pub fn options(players: u8) -> DraftCiderOptions {
    DraftCiderOptions {
        players,
        ..DraftCiderOptions::default()
    }
}

/// A hand-made position: `placed` cards already lie in the orchards, the
/// communal hand is `hand` (round `round` of `rounds`), and `to_pick` picks next.
pub struct Position {
    pub options: DraftCiderOptions,
    pub rounds: u8,
    pub round: u8,
    pub cards_per_player: u8,
    pub hand: Vec<DraftCiderCard>,
    pub placed: Vec<(u8, DraftCiderCard, DraftCiderBatch)>,
    pub to_pick: u8,
}

impl Position {
    pub fn new(players: u8, hand: &[&str]) -> Self {
        Position {
            options: options(players),
            rounds: 4,
            round: 1,
            cards_per_player: 3,
            hand: cards(hand),
            placed: Vec::new(),
            to_pick: 0,
        }
    }

    pub fn with_placed(mut self, seat: u8, text: &str, batch: DraftCiderBatch) -> Self {
        self.placed.push((seat, card(text), batch));
        self
    }

    pub fn picking(mut self, seat: u8) -> Self {
        self.to_pick = seat;
        self
    }

    pub fn last_round(mut self) -> Self {
        self.rounds = self.round;
        self
    }

    pub fn events(&self) -> Vec<DraftCiderEvent> {
        let mut events = vec![
            DraftCiderEvent::GameSetUp {
                options: self.options.clone(),
                players: self.options.players,
                rounds: self.rounds,
                cards_per_player: self.cards_per_player,
            },
            DraftCiderEvent::DeckShuffled { deck: full_deck() },
        ];
        // Placed before the deal, so that the deal sets whose pick it is.
        events.extend(
            self.placed
                .iter()
                .map(|(seat, card, batch)| DraftCiderEvent::CardPicked {
                    seat: SeatIndex(*seat),
                    card: *card,
                    batch: *batch,
                    timed_out: false,
                }),
        );
        events.push(DraftCiderEvent::RoundDealt {
            round: self.round,
            first_picker: SeatIndex(self.to_pick),
            cards: self.hand.clone(),
        });
        events
    }

    pub fn table(&self) -> Table<DraftCider> {
        Table::from_events(self.options.clone(), self.events())
    }
}

//! Shared helpers for the arboretum tests: actors, cards, cells and a
//! position builder on top of `Table::from_events`.

use umpire_arboretum::cards::full_deck;
use umpire_arboretum::{
    Arboretum, ArboretumAction, ArboretumCard, ArboretumCell, ArboretumEvent, ArboretumGroup,
    ArboretumOptions, ArboretumPlan, ArboretumSeat,
};
use umpire_domain::testing::Table;
use umpire_domain::Actor;

pub const RED: Actor<ArboretumSeat> = Actor::Seat(ArboretumSeat::Red);
pub const BLUE: Actor<ArboretumSeat> = Actor::Seat(ArboretumSeat::Blue);
pub const UMPIRE: Actor<ArboretumSeat> = Actor::Umpire;

pub fn card(text: &str) -> ArboretumCard {
    ArboretumCard::of(text)
}

pub fn cell(text: &str) -> ArboretumCell {
    ArboretumCell::of(text)
}

pub fn cards(texts: &[&str]) -> Vec<ArboretumCard> {
    texts.iter().map(|text| card(text)).collect()
}

/// `"3b 2g 1g"` → groups of 3 (bulletin), 2 (garden), 1 (garden).
pub fn groups(text: &str) -> Vec<ArboretumGroup> {
    text.split_whitespace()
        .map(|group| {
            let (size, plan) = group.split_at(group.len() - 1);
            ArboretumGroup {
                size: size.parse().expect("group size"),
                plan: match plan {
                    "g" => ArboretumPlan::Garden,
                    "b" => ArboretumPlan::Bulletin,
                    other => panic!("plan {other}"),
                },
            }
        })
        .collect()
}

pub fn bid(text: &str) -> ArboretumAction {
    ArboretumAction::Bid {
        groups: groups(text),
    }
}

pub fn plant(card_text: &str, cell_text: &str) -> ArboretumAction {
    ArboretumAction::Plant {
        card: card(card_text),
        cell: cell(cell_text),
    }
}

pub fn dig(card_text: &str, cell_text: &str) -> ArboretumAction {
    ArboretumAction::Dig {
        card: card(card_text),
        cell: cell(cell_text),
    }
}

pub fn take(card_text: &str, discard: Option<&str>) -> ArboretumAction {
    ArboretumAction::Take {
        card: card(card_text),
        discard: discard.map(card),
    }
}

pub fn hire(texts: &[&str]) -> ArboretumAction {
    ArboretumAction::Hire {
        cards: cards(texts),
    }
}

/// A hand-made position at the start of a round's bidding, under the
/// default options (red holds the DM Advantage).
pub struct Position {
    round: u8,
    starting_player: ArboretumSeat,
    offering: Vec<ArboretumCard>,
    refuse: Vec<ArboretumCard>,
    placements: Vec<ArboretumEvent>,
}

impl Position {
    pub fn round(round: u8, starting_player: ArboretumSeat) -> Self {
        Position {
            round,
            starting_player,
            offering: Vec::new(),
            refuse: Vec::new(),
            placements: Vec::new(),
        }
    }

    pub fn offering(mut self, texts: &[&str]) -> Self {
        self.offering = cards(texts);
        self
    }

    pub fn refuse(mut self, texts: &[&str]) -> Self {
        self.refuse = cards(texts);
        self
    }

    /// Plants `"D5:Q7"` pairs in the seat's arboretum.
    pub fn planted(mut self, seat: ArboretumSeat, pairs: &[&str]) -> Self {
        for pair in pairs {
            let (cell_text, card_text) = pair.split_once(':').expect("cell:card");
            self.placements.push(ArboretumEvent::CardPlanted {
                seat,
                card: card(card_text),
                cell: cell(cell_text),
            });
        }
        self
    }

    pub fn ad_board(mut self, seat: ArboretumSeat, texts: &[&str]) -> Self {
        for card_text in texts {
            self.placements.push(ArboretumEvent::CardTaken {
                seat,
                card: card(card_text),
                discard: None,
            });
        }
        self
    }

    pub fn parrots(mut self, seat: ArboretumSeat, parrots: u8) -> Self {
        self.placements.push(ArboretumEvent::ParrotHired {
            seat,
            cards: Vec::new(),
            parrots,
        });
        self
    }

    pub fn events(self) -> Vec<ArboretumEvent> {
        let mut events = vec![
            ArboretumEvent::DeckShuffled {
                card_count: 64,
                deck: Some(full_deck()),
            },
            ArboretumEvent::RoundStarted {
                round: self.round,
                starting_player: self.starting_player,
            },
            ArboretumEvent::CardsDealt {
                round: self.round,
                cards: self.refuse.clone(),
            },
        ];
        events.extend(self.placements);
        events.push(ArboretumEvent::RoundEnded {
            round: self.round,
            removed_from_game: Vec::new(),
            moved_to_refuse: self.refuse,
            next_starting_player: self.starting_player,
        });
        events.push(ArboretumEvent::RoundStarted {
            round: self.round,
            starting_player: self.starting_player,
        });
        events.push(ArboretumEvent::CardsDealt {
            round: self.round,
            cards: self.offering,
        });
        events
    }

    pub fn table(self) -> Table<Arboretum> {
        Table::from_events(ArboretumOptions::default(), self.events())
    }
}

/// Both seats bid; the second bid reveals them.
pub fn bids(table: &mut Table<Arboretum>, red: &str, blue: &str) -> Vec<ArboretumEvent> {
    table.accepts(RED, bid(red));
    table.accepts(BLUE, bid(blue))
}

pub fn turn_letters(table: &Table<Arboretum>) -> String {
    table
        .state
        .turn_order
        .iter()
        .map(|turn| match turn.seat {
            ArboretumSeat::Red => "R",
            ArboretumSeat::Blue => "B",
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn has_event(events: &[ArboretumEvent], predicate: impl Fn(&ArboretumEvent) -> bool) -> bool {
    events.iter().any(predicate)
}

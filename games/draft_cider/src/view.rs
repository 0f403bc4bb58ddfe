//! What each viewer may see (rule book §5): everything is public except the
//! deck order, which only the umpire sees — in the view and in events.

use serde::Serialize;
use umpire_domain::{SeatIndex, Viewer};

use crate::batches::{feather_chain, DraftCiderFeatherChain, DraftCiderOrchard};
use crate::cards::{DraftCiderCard, DraftCiderColour};
use crate::messages::DraftCiderEvent;
use crate::options::DraftCiderOptions;
use crate::state::DraftCiderState;

/// One seat's orchard with what its batches currently demand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct DraftCiderOrchardView {
    pub seat: SeatIndex,
    /// The eight batches, each in placement order.
    pub batches: DraftCiderOrchard,
    /// The colour the Monochrome batch is fixed to, once it has a card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub monochrome_colour: Option<DraftCiderColour>,
    /// The live attributes of the Feather chain, once it has a card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feather_chain: Option<DraftCiderFeatherChain>,
}

/// The game as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct DraftCiderView {
    pub options: DraftCiderOptions,
    pub players: u8,
    pub rounds: u8,
    pub cards_per_player: u8,
    /// The current round, 1-based; 0 before the first deal.
    pub round: u8,
    pub round_first_picker: SeatIndex,
    /// The seat whose pick it is; absent once the game is over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_act: Option<SeatIndex>,
    /// The communal hand in deal order (public, §5).
    pub communal_hand: Vec<DraftCiderCard>,
    pub orchards: Vec<DraftCiderOrchardView>,
    pub finished: bool,
    /// The whole shuffled deck, top first. Umpire only (§5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deck: Option<Vec<DraftCiderCard>>,
    /// How many cards of the deck have been dealt. Umpire only, with the deck.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cards_dealt: Option<usize>,
}

pub fn view(state: &DraftCiderState, viewer: Viewer<SeatIndex>) -> DraftCiderView {
    let umpire = viewer.is_umpire();
    DraftCiderView {
        options: state.options.clone(),
        players: state.players,
        rounds: state.rounds_total,
        cards_per_player: state.cards_per_player,
        round: state.round,
        round_first_picker: state.round_first_picker,
        to_act: state.is_drafting().then_some(state.picker),
        communal_hand: state.communal_hand.clone(),
        orchards: state
            .seats()
            .zip(state.orchards.iter())
            .map(|(seat, orchard)| DraftCiderOrchardView {
                seat,
                batches: orchard.clone(),
                monochrome_colour: orchard.monochrome_colour(),
                feather_chain: feather_chain(&orchard.feather),
            })
            .collect(),
        finished: state.finished,
        deck: umpire.then(|| state.deck.clone()),
        cards_dealt: umpire.then_some(state.cards_dealt),
    }
}

/// Hides the deck order from everyone but the umpire, even after the game:
/// the cards never dealt stay secret (§5). Every other event is public.
pub fn redact_event(
    _now: &DraftCiderState,
    event: &DraftCiderEvent,
    viewer: Viewer<SeatIndex>,
) -> Option<DraftCiderEvent> {
    match event {
        DraftCiderEvent::DeckShuffled { .. } if !viewer.is_umpire() => None,
        _ => Some(event.clone()),
    }
}

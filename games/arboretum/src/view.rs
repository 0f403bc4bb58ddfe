//! What one viewer may see (§6): everything is public except each seat's
//! bid before the reveal (own seat and umpire only) and the deck order
//! (umpire only).

use serde::Serialize;
use umpire_domain::Viewer;
use utoipa::ToSchema;

use crate::cards::ArboretumCard;
use crate::cells::ArboretumCell;
use crate::model::{ArboretumEvent, ArboretumGroup, ArboretumSeat, ArboretumTurn};
use crate::state::{ArboretumPhase, ArboretumSpecials, ArboretumState};

/// The game as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct ArboretumView {
    pub phase: ArboretumPhase,
    /// 0 before round 1, then 1–11.
    pub round: u8,
    pub dm_advantage: ArboretumSeat,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub starting_player: Option<ArboretumSeat>,
    /// Seats the game is waiting for.
    pub to_act: Vec<ArboretumSeat>,
    pub red: ArboretumSeatView,
    pub blue: ArboretumSeatView,
    pub offering_area: Vec<ArboretumCard>,
    pub refuse_pile: Vec<ArboretumCard>,
    pub out_of_game: Vec<ArboretumCard>,
    pub cards_left_in_deck: u8,
    /// The undealt cards in dealing order: umpire only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deck: Option<Vec<ArboretumCard>>,
    /// This round's turn order, once the bids are revealed.
    pub turn_order: Vec<ArboretumTurn>,
    /// Turns past the ninth, not played this round.
    pub dropped_turns: Vec<ArboretumTurn>,
    /// Zero-based index into `turn_order` of the turn being played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_turn: Option<u8>,
    pub specials: ArboretumSpecials,
}

/// A planted card and where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct ArboretumPlantedCard {
    pub cell: ArboretumCell,
    pub card: ArboretumCard,
}

/// One seat's area as the viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct ArboretumSeatView {
    pub parrots: u8,
    /// Parrots the seat may bid with this round.
    pub usable_parrots: u8,
    pub arboretum: Vec<ArboretumPlantedCard>,
    pub ad_board: Vec<ArboretumCard>,
    /// Whether the seat has bid this round (public: the table knows who is
    /// still thinking, not what they bid).
    pub has_bid: bool,
    /// The bid: visible to its own seat and the umpire during bidding, to
    /// everyone once revealed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bid: Option<Vec<ArboretumGroup>>,
    /// The seat has skipped the rest of this round.
    pub forfeited_round: bool,
}

/// Whether the bids of the state's current round are public yet.
fn bids_revealed(state: &ArboretumState) -> bool {
    !matches!(
        state.phase,
        ArboretumPhase::Bidding | ArboretumPhase::ChoosingStart
    )
}

fn seat_view(
    state: &ArboretumState,
    seat: ArboretumSeat,
    viewer: Viewer<ArboretumSeat>,
) -> ArboretumSeatView {
    let player = state.player(seat);
    let bid = &state.bids[seat.index()];
    let bid_visible = bids_revealed(state) || viewer.sees_secrets_of(seat);
    ArboretumSeatView {
        parrots: player.parrots,
        usable_parrots: state.usable_parrots(seat),
        arboretum: player
            .arboretum
            .iter()
            .map(|(cell, card)| ArboretumPlantedCard {
                cell: *cell,
                card: *card,
            })
            .collect(),
        ad_board: player.ad_board.clone(),
        has_bid: bid.is_some(),
        bid: if bid_visible { bid.clone() } else { None },
        forfeited_round: state.forfeited[seat.index()],
    }
}

pub fn view(state: &ArboretumState, viewer: Viewer<ArboretumSeat>) -> ArboretumView {
    let undealt = state.deck.get(state.dealt..).unwrap_or_default();
    ArboretumView {
        phase: state.phase,
        round: state.round,
        dm_advantage: state.options.dm_advantage,
        starting_player: state.starting_player,
        to_act: crate::status::to_act(state),
        red: seat_view(state, ArboretumSeat::Red, viewer),
        blue: seat_view(state, ArboretumSeat::Blue, viewer),
        offering_area: state.offering_area.clone(),
        refuse_pile: state.refuse_pile.clone(),
        out_of_game: state.out_of_game.clone(),
        cards_left_in_deck: u8::try_from(undealt.len()).unwrap_or(u8::MAX),
        deck: viewer.is_umpire().then(|| undealt.to_vec()),
        turn_order: state.turn_order.clone(),
        dropped_turns: state.dropped_turns.clone(),
        current_turn: state
            .current_turn()
            .and_then(|_| u8::try_from(state.next_turn).ok()),
        specials: state.specials,
    }
}

/// Hides the deck order from all but the umpire, and a bid's groups from
/// all but its seat and the umpire (everyone learns the final bids from
/// `bids_revealed`; replaced bids stay private for good).
pub fn redact_event(
    event: &ArboretumEvent,
    viewer: Viewer<ArboretumSeat>,
) -> Option<ArboretumEvent> {
    match event {
        ArboretumEvent::DeckShuffled { card_count, .. } if !viewer.is_umpire() => {
            Some(ArboretumEvent::DeckShuffled {
                card_count: *card_count,
                deck: None,
            })
        }
        ArboretumEvent::BidSubmitted {
            round,
            seat,
            replaced,
            ..
        } if !viewer.sees_secrets_of(*seat) => Some(ArboretumEvent::BidSubmitted {
            round: *round,
            seat: *seat,
            replaced: *replaced,
            groups: None,
        }),
        other => Some(other.clone()),
    }
}

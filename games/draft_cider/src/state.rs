//! The whole game state, as only `apply` changes it.

use umpire_domain::SeatIndex;

use crate::batches::DraftCiderOrchard;
use crate::cards::DraftCiderCard;
use crate::options::{seats, DraftCiderOptions, RoundNumbers};

/// Everything about one game, secrets included.
#[derive(get_size2::GetSize, Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DraftCiderState {
    pub options: DraftCiderOptions,
    pub players: u8,
    pub rounds_total: u8,
    pub cards_per_player: u8,
    /// The shuffled deck in full (umpire-only, §5); empty until recorded.
    pub deck: Vec<DraftCiderCard>,
    /// How many cards from the top of the deck have been dealt so far.
    pub cards_dealt: usize,
    /// The current round, 1-based; 0 before the first deal.
    pub round: u8,
    /// Who picked first this round.
    pub round_first_picker: SeatIndex,
    /// Whose pick it is now.
    pub picker: SeatIndex,
    /// The communal hand, in deal order (the order a timeout takes from, §2).
    pub communal_hand: Vec<DraftCiderCard>,
    /// One orchard per seat, by seat index.
    pub orchards: Vec<DraftCiderOrchard>,
    pub finished: bool,
}

impl DraftCiderState {
    /// The state before any event, with the numbers the options imply (the
    /// setup event records them again, and that record wins).
    pub fn initial(options: &DraftCiderOptions) -> Self {
        let numbers = RoundNumbers::for_options(options);
        let players = seats(options).len();
        DraftCiderState {
            options: options.clone(),
            players: u8::try_from(players).unwrap_or(1),
            rounds_total: numbers.rounds,
            cards_per_player: numbers.cards_per_player,
            deck: Vec::new(),
            cards_dealt: 0,
            round: 0,
            round_first_picker: SeatIndex(options.first_picker),
            picker: SeatIndex(options.first_picker),
            communal_hand: Vec::new(),
            orchards: vec![DraftCiderOrchard::default(); players],
            finished: false,
        }
    }

    pub fn seats(&self) -> impl Iterator<Item = SeatIndex> {
        (0..self.players).map(SeatIndex)
    }

    pub fn orchard(&self, seat: SeatIndex) -> Option<&DraftCiderOrchard> {
        self.orchards.get(usize::from(seat.0))
    }

    /// True once the first round has been dealt and until the game ends.
    pub fn is_drafting(&self) -> bool {
        self.round > 0 && !self.finished
    }

    /// The seat after `seat`, clockwise (§2: seats are numbered clockwise).
    pub fn next_clockwise(&self, seat: SeatIndex) -> SeatIndex {
        SeatIndex((seat.0.saturating_add(1)) % self.players.max(1))
    }

    /// The first picker of `round` (1-based): the option's seat, moved one
    /// seat clockwise each round (§2).
    pub fn first_picker_of_round(&self, round: u8) -> SeatIndex {
        let players = u16::from(self.players.max(1));
        let offset = u16::from(round.saturating_sub(1));
        let seat = (u16::from(self.options.first_picker) + offset) % players;
        SeatIndex(u8::try_from(seat).unwrap_or(0))
    }
}

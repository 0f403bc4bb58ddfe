//! Every way Draft & Cider refuses an action or options: code, rule book
//! section (`docs/rules/draft-cider.md`), meaning.

umpire_domain::violation_kinds! {
    NOT_STARTED = ("draft_cider.not_started", "draft_cider §2",
        "No round has been dealt yet, so there is nothing to pick.");
    GAME_OVER = ("draft_cider.game_over", "draft_cider §4",
        "The last round is over; nothing more is picked.");
    NOT_YOUR_TURN = ("draft_cider.not_your_turn", "draft_cider §2",
        "Another seat is to pick.");
    UNKNOWN_SEAT = ("draft_cider.unknown_seat", "draft_cider §2",
        "The seat does not exist in a game of this many players.");
    NOT_A_SEAT_ACTION = ("draft_cider.not_a_seat_action", "draft_cider §2",
        "Picks are made by the seat whose turn it is, not by the umpire.");
    UMPIRE_ONLY = ("draft_cider.umpire_only", "draft_cider §2",
        "Only the umpire may declare a timeout.");
    CARD_NOT_IN_HAND = ("draft_cider.card_not_in_hand", "draft_cider §2",
        "The card is not in the communal hand.");
    MONOCHROME_COLOUR = ("draft_cider.monochrome_colour", "draft_cider §3",
        "A Monochrome batch takes cards of its one colour only.");
    FEATHER_MISMATCH = ("draft_cider.feather_mismatch", "draft_cider §3",
        "A Feather chain card must match a live attribute of the chain.");
    SPECIAL_TREE_OCCUPIED = ("draft_cider.special_tree_occupied", "draft_cider §3",
        "The Special Colour Tree already holds a card.");
    SPECIAL_TREE_COLOUR_USED = ("draft_cider.special_tree_colour_used", "draft_cider §3",
        "A Special Colour Tree cannot start with a colour already lying outside it.");
    UNLUCKY_SPREAD = ("draft_cider.unlucky_spread", "draft_cider §3",
        "An Unlucky batch's sweetness may not spread over more than two neighbouring values.");
    FORTEPIANO_SAME_HEIGHT = ("draft_cider.fortepiano_same_height", "draft_cider §3",
        "A Fortepiano pair needs two different heights.");
    SWEET_COUPLE_MISMATCH = ("draft_cider.sweet_couple_mismatch", "draft_cider §3",
        "A Sweet Couple pair needs the same sweetness.");
    STEADY_STEP = ("draft_cider.steady_step", "draft_cider §3",
        "Steady Height cards step at most one height from the previous card.");
    INVALID_PLAYERS = ("draft_cider.invalid_option", "draft_cider §6",
        "The number of players is outside what the game allows.");
    INVALID_FIRST_PICKER = ("draft_cider.invalid_option", "draft_cider §2",
        "The first picker is not one of the game's seats.");
}

//! Every way Build Your Arboretum refuses an action: code, rule book
//! section (`docs/rules/arboretum.md`), meaning.

umpire_domain::violation_kinds! {
    GAME_OVER = ("arboretum.game_over", "arboretum §3",
        "The game ended after its last round; no action is possible.");
    WRONG_PHASE = ("arboretum.wrong_phase", "arboretum §3",
        "The action belongs to another phase of the round than the current one.");
    NOT_YOUR_TURN_TO_CHOOSE_START = ("arboretum.not_your_turn", "arboretum §2",
        "Only the holder of the DM Advantage chooses the starting player.");
    NOT_YOUR_TURN = ("arboretum.not_your_turn", "arboretum §3.4",
        "Another seat is to act.");
    BID_GROUP_EMPTY = ("arboretum.bid_group_empty", "arboretum §3.2",
        "A bid's group has no parrots; every group needs at least one.");
    BID_NOT_NON_INCREASING = ("arboretum.bid_not_non_increasing", "arboretum §3.2",
        "A bid's group is larger than the group before it.");
    BID_TOO_MANY_PARROTS = ("arboretum.bid_too_many_parrots", "arboretum §3.2",
        "A bid uses more parrots than the seat may use this round.");
    TIMEOUT_AFTER_BID = ("arboretum.timeout_not_applicable", "arboretum §3.2",
        "A seat that has already bid this round cannot be timed out of bidding.");
    TIMEOUT_NOT_THEIR_TURN = ("arboretum.timeout_not_applicable", "arboretum §3.4",
        "A seat whose turn it is not cannot be timed out.");
    UMPIRE_ONLY = ("arboretum.umpire_only", "arboretum §3.4",
        "Only the umpire may time a seat out.");
    NOT_A_SEAT_ACTION = ("arboretum.not_a_seat_action", "arboretum §3.4",
        "The umpire sends only timeouts; seat actions come from seats.");
    PLAN_MISMATCH = ("arboretum.plan_mismatch", "arboretum §4",
        "The action does not fit the plan of the group this turn plays.");
    SPECIAL_ALREADY_TAKEN = ("arboretum.special_already_taken", "arboretum §4",
        "A special action (dig, hire, start) was already taken this round.");
    CELL_OCCUPIED = ("arboretum.cell_occupied", "arboretum §4",
        "The cell already holds a tree.");
    CELL_NOT_ADJACENT = ("arboretum.cell_not_adjacent", "arboretum §4",
        "The cell is not orthogonally adjacent to any planted card.");
    ARBORETUM_FULL = ("arboretum.arboretum_full", "arboretum §4",
        "Every cell of the seat's arboretum holds a tree.");
    CARD_NOT_IN_OFFERING = ("arboretum.card_not_in_offering", "arboretum §4",
        "The card is not in the offering area.");
    CARD_NOT_IN_REFUSE = ("arboretum.card_not_in_refuse", "arboretum §4",
        "The card is not in the refuse pile.");
    CARD_NOT_ON_AD_BOARD = ("arboretum.card_not_on_ad_board", "arboretum §4",
        "The card is not on the seat's ad board.");
    DISCARD_REQUIRED = ("arboretum.discard_required", "arboretum §4",
        "Taking the card fills the ad board past seven, so a discard is required.");
    DISCARD_IS_TAKEN_CARD = ("arboretum.discard_is_taken_card", "arboretum §4",
        "The card just taken cannot be the discard.");
    DISCARD_NOT_ALLOWED = ("arboretum.discard_not_allowed", "arboretum §4",
        "The ad board is not over seven cards, so nothing may be discarded.");
    HIRE_TOTAL_TOO_LOW = ("arboretum.hire_total_too_low", "arboretum §4",
        "The cards discarded to hire do not add up to what the parrots need.");
}

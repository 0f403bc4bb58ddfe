//! Every way Treeblox refuses an action: code, rule book section
//! (`docs/rules/treeblox.md`; `§R` is the project's rulings), meaning.

umpire_domain::violation_kinds! {
    NOT_SET_UP = ("treeblox.not_set_up", "treeblox §2",
        "The game has not been set up yet.");
    GAME_OVER = ("treeblox.game_over", "treeblox §2",
        "The game is over; no further action is accepted.");
    NOT_YOUR_TURN = ("treeblox.not_your_turn", "treeblox §2",
        "The other seat is to act.");
    FIRST_TURN_MUST_BE_LEAF_ON_BOARD = ("treeblox.first_turn_must_be_leaf_on_board", "treeblox §2",
        "A seat's first turn is exactly one leaf in a board hole.");
    TOO_MANY_PLACEMENTS = ("treeblox.too_many_placements", "treeblox §2",
        "The turn lists more placements than the seat's growth rate allows.");
    FINAL_GROWTH_INCOMPLETE = ("treeblox.final_growth_incomplete", "treeblox §2",
        "In the final growth a seat places every cube it still can.");
    NO_CUBES_OF_KIND = ("treeblox.no_cubes_of_kind", "treeblox §2",
        "The seat has no cube of that kind left.");
    CELL_OCCUPIED = ("treeblox.cell_occupied", "treeblox §1",
        "The cell already holds a cube.");
    BELOW_GROUND = ("treeblox.below_ground", "treeblox §1",
        "Nothing goes below the board (z below 0).");
    CELL_NOT_REACHABLE = ("treeblox.cell_not_reachable", "treeblox §1",
        "The cell is neither a board hole nor next to one of the seat's branches.");
    UMPIRE_ONLY = ("treeblox.umpire_only", "treeblox §R",
        "Only the umpire may time a seat out.");
    TIMEOUT_NOT_THEIR_TURN = ("treeblox.not_your_turn", "treeblox §R",
        "A seat whose turn it is not cannot be timed out.");
    NOT_A_SEAT_ACTION = ("treeblox.not_a_seat_action", "treeblox §R",
        "The umpire cannot grow a tree; only the seat to act can.");
}

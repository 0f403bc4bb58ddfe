//! Every way Between Flower Fields refuses an action or options: code,
//! rule book section (`docs/rules/flower-fields.md`), meaning.

umpire_domain::violation_kinds! {
    NOT_STARTED = ("flower_fields.not_started", "flower_fields §1",
        "The game has not been set up yet.");
    GAME_OVER = ("flower_fields.game_over", "flower_fields §7",
        "The game is over after round 12.");
    NO_SUCH_SEAT = ("flower_fields.no_such_seat", "flower_fields §1",
        "The seat does not exist: seats are 0 to 4.");
    NOT_A_SEAT_ACTION = ("flower_fields.not_a_seat_action", "flower_fields §1",
        "Submissions and replacements are made by a seat, not by the umpire.");
    UMPIRE_ONLY = ("flower_fields.umpire_only", "flower_fields §5",
        "Only the umpire may send an umpire action (a timeout, a ruling).");
    ALREADY_SUBMITTED = ("flower_fields.already_submitted", "flower_fields §1",
        "The seat already submitted this round; it may replace its submission explicitly.");
    SUBMISSION_MISSED = ("flower_fields.submission_missed", "flower_fields §5",
        "The seat already missed this round's submission.");
    WRONG_FIELD = ("flower_fields.wrong_field", "flower_fields §1",
        "A seat plays into the field due this round, not another.");
    NOT_IN_HAND = ("flower_fields.not_in_hand", "flower_fields §2",
        "The seat does not hold the piece it submits.");
    PIECE_OVERDUE = ("flower_fields.piece_overdue", "flower_fields §2",
        "A piece held for three rounds must be played now, before any other.");
    MISSING_REVEALED_PIECE = ("flower_fields.missing_revealed_piece", "flower_fields §5",
        "A piece revealed to the seat must be placed in its field first.");
    NO_REVEALED_PIECE = ("flower_fields.no_revealed_piece", "flower_fields §5",
        "No such revealed piece waits in the field.");
    SAME_CELL = ("flower_fields.same_cell", "flower_fields §3",
        "A placement names the same cell twice.");
    CELL_OCCUPIED = ("flower_fields.cell_occupied", "flower_fields §3",
        "The cell is already planted.");
    BREAK_NOT_NEEDED = ("flower_fields.break_not_needed", "flower_fields §3",
        "A piece may be broken only when the field has no two adjacent empty cells.");
    CELLS_NOT_ADJACENT = ("flower_fields.cells_not_adjacent", "flower_fields §3",
        "An unbroken piece covers two orthogonally adjacent cells.");
    REPLACEMENT_NOT_ALLOWED = ("flower_fields.replacement_not_allowed", "flower_fields §6",
        "The piece cannot be replaced: the ruling is off, the piece was dealt too late, or the seat lacks the garnets.");
    ALREADY_SUBMITTED_BEFORE_REPLACING = ("flower_fields.already_submitted", "flower_fields §6",
        "A piece is replaced before the seat submits for the round, not after.");
    NOT_IN_HAND_TO_REPLACE = ("flower_fields.not_in_hand", "flower_fields §6",
        "The seat does not hold the piece it wants replaced.");
    TIMEOUT_AFTER_SUBMISSION = ("flower_fields.already_submitted", "flower_fields §5",
        "A seat that submitted this round cannot be timed out.");
    NO_CANDIDATE_TIE = ("flower_fields.no_candidate_tie", "flower_fields §7",
        "There is no tie for the Elimination Candidate to settle.");
    NOT_A_CANDIDATE = ("flower_fields.not_a_candidate", "flower_fields §7",
        "The seat is not among the tied Elimination Candidates.");
    INVALID_STARTING_GARNETS = ("flower_fields.invalid_option", "flower_fields §4",
        "The starting garnets are outside the allowed range.");
    INVALID_SCORING_PARAMETER = ("flower_fields.invalid_option", "flower_fields §7",
        "A scoring parameter is outside the allowed range.");
}

//! What every viewer may see of where a game stands: who must act, and
//! its clock. The games' statuses and the clock's meet here, beneath both
//! the type-erased game (`erased`) and the clock (`clock`), so that neither
//! names the other for it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Who must act, with seats by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct StatusJson {
    pub phase: String,
    pub finished: bool,
    /// Seats whose action the game is waiting for.
    pub to_act: Vec<String>,
    /// The game's clock, for a game created with one: every due seat's
    /// deadline and every seat's reserve left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockStatus>,
}

/// The clock as every viewer may see it (public).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ClockStatus {
    pub per_move_ms: u64,
    pub reserve_ms: u64,
    /// Since when the umpire has paused the clock; absent while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "2026-11-27T10:00:00.000000Z")]
    pub paused_since: Option<String>,
    /// While the clock waits for its seats to sit down before it starts:
    /// the seats that have not joined yet. Absent once it has started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_for: Option<Vec<String>>,
    /// Every seat's clock, by seat name: every seat of the game, whether
    /// or not it has been due yet.
    pub seats: BTreeMap<String, SeatClockStatus>,
}

/// One seat's clock, as every viewer may see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SeatClockStatus {
    /// What is left of the seat's reserve before its current move.
    pub reserve_left_ms: u64,
    /// While the game waits for the seat: since when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "2026-11-27T10:00:00.000000Z")]
    pub due_since: Option<String>,
    /// While the seat is due and the clock runs: when it is timed out,
    /// its time per move and all its reserve spent. While the clock is
    /// paused, only a deadline that had passed before the pause: its
    /// timeout is owed all the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "2026-11-27T10:06:00.000000Z")]
    pub deadline: Option<String>,
    /// While the seat is due and the clock is paused: the milliseconds it
    /// will have when the clock resumes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_ms: Option<u64>,
}

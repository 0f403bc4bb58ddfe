//! The two seats, `dark` (moves first) and `light`.

use serde::{Deserialize, Serialize};
use umpire_domain::Seat;

/// A seat of Treeblox. Dark plays black branches and dark green leaves,
/// light plays white branches and light green leaves.
#[derive(
    get_size2::GetSize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TreebloxSeat {
    Dark,
    Light,
}

impl TreebloxSeat {
    /// Both seats in table order: dark moves first.
    pub const ALL: [TreebloxSeat; 2] = [TreebloxSeat::Dark, TreebloxSeat::Light];

    pub fn opponent(self) -> TreebloxSeat {
        match self {
            TreebloxSeat::Dark => TreebloxSeat::Light,
            TreebloxSeat::Light => TreebloxSeat::Dark,
        }
    }

    /// Position in [`TreebloxSeat::ALL`], used to index per-seat arrays.
    pub fn index(self) -> usize {
        match self {
            TreebloxSeat::Dark => 0,
            TreebloxSeat::Light => 1,
        }
    }
}

impl Seat for TreebloxSeat {
    fn name(&self) -> String {
        match self {
            TreebloxSeat::Dark => "dark".into(),
            TreebloxSeat::Light => "light".into(),
        }
    }

    fn parse(name: &str) -> Option<Self> {
        match name {
            "dark" => Some(TreebloxSeat::Dark),
            "light" => Some(TreebloxSeat::Light),
            _ => None,
        }
    }
}

impl std::fmt::Display for TreebloxSeat {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.name())
    }
}

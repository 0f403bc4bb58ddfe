//! Setup options: starting garnets, the flower scoring mapping (§7) and the
//! piece-replacement ruling at the start (§6).

use serde::{Deserialize, Serialize};
use umpire_domain::Violation;
use utoipa::ToSchema;

use crate::codes;
use crate::flowers::FlowerFieldsFlower;

/// The largest parameter or garnet amount accepted, so that no score can
/// overflow however a setup is chosen.
pub const MAXIMUM_PARAMETER: i64 = 1_000_000;

/// One rule of the scoring library (§7), with its parameters as data.
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
pub enum FlowerFieldsScoringRule {
    /// Scores no points; earns garnets at the end (§4).
    Garnets,
    /// The largest connected group of the type scores `per_flower` × size.
    LargestGroup { per_flower: i64 },
    /// Each flower scores `per_type` × distinct non-black neighbour types.
    NeighbourVariety { per_type: i64 },
    /// Each flower scores `points` if the other field's same cell matches.
    Mirror { points: i64 },
    /// Each flower scores by how this field's count compares with the other's.
    Majority { more: i64, equal: i64, fewer: i64 },
    /// Each border flower scores `edge`, a corner flower `corner`.
    Edges { edge: i64, corner: i64 },
    /// Each flower scores `points`.
    PerFlower { points: i64 },
}

impl FlowerFieldsScoringRule {
    fn parameters(&self) -> Vec<i64> {
        match *self {
            FlowerFieldsScoringRule::Garnets => vec![],
            FlowerFieldsScoringRule::LargestGroup { per_flower } => vec![per_flower],
            FlowerFieldsScoringRule::NeighbourVariety { per_type } => vec![per_type],
            FlowerFieldsScoringRule::Mirror { points } => vec![points],
            FlowerFieldsScoringRule::Majority { more, equal, fewer } => vec![more, equal, fewer],
            FlowerFieldsScoringRule::Edges { edge, corner } => vec![edge, corner],
            FlowerFieldsScoringRule::PerFlower { points } => vec![points],
        }
    }
}

/// Which library rule each of the six types scores by. Defaults are the
/// rule book's table (§7).
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct FlowerFieldsScoringMapping {
    pub white: FlowerFieldsScoringRule,
    pub red: FlowerFieldsScoringRule,
    pub yellow: FlowerFieldsScoringRule,
    pub blue: FlowerFieldsScoringRule,
    pub purple: FlowerFieldsScoringRule,
    pub orange: FlowerFieldsScoringRule,
}

impl Default for FlowerFieldsScoringMapping {
    fn default() -> Self {
        FlowerFieldsScoringMapping {
            white: FlowerFieldsScoringRule::Garnets,
            red: FlowerFieldsScoringRule::LargestGroup { per_flower: 2 },
            yellow: FlowerFieldsScoringRule::NeighbourVariety { per_type: 1 },
            blue: FlowerFieldsScoringRule::Mirror { points: 3 },
            purple: FlowerFieldsScoringRule::Majority {
                more: 2,
                equal: 1,
                fewer: 0,
            },
            orange: FlowerFieldsScoringRule::Edges { edge: 1, corner: 3 },
        }
    }
}

impl FlowerFieldsScoringMapping {
    /// The rule of a type; `black` scores nothing and has none.
    pub fn rule_of(&self, flower: FlowerFieldsFlower) -> Option<FlowerFieldsScoringRule> {
        match flower {
            FlowerFieldsFlower::White => Some(self.white),
            FlowerFieldsFlower::Red => Some(self.red),
            FlowerFieldsFlower::Yellow => Some(self.yellow),
            FlowerFieldsFlower::Blue => Some(self.blue),
            FlowerFieldsFlower::Purple => Some(self.purple),
            FlowerFieldsFlower::Orange => Some(self.orange),
            FlowerFieldsFlower::Black => None,
        }
    }
}

/// Options of a game of Between Flower Fields.
#[derive(
    get_size2::GetSize, Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct FlowerFieldsOptions {
    /// Garnets every seat starts with (§4).
    pub starting_garnets: i64,
    /// The scoring rule of each flower type (§7).
    pub scoring: FlowerFieldsScoringMapping,
    /// Whether the piece-replacement ruling is in force from the start (§6).
    pub piece_replacement: bool,
}

/// Refuses negative or absurd amounts (§4, §7).
pub fn validate(options: FlowerFieldsOptions) -> Result<FlowerFieldsOptions, Violation> {
    if !(0..=MAXIMUM_PARAMETER).contains(&options.starting_garnets) {
        return Err(codes::INVALID_STARTING_GARNETS.with(format!(
            "`starting_garnets` must be between 0 and {MAXIMUM_PARAMETER}, not {}.",
            options.starting_garnets
        )));
    }
    for flower in FlowerFieldsFlower::PLANTABLE {
        let Some(rule) = options.scoring.rule_of(flower) else {
            continue;
        };
        if let Some(bad) = rule
            .parameters()
            .into_iter()
            .find(|value| value.abs() > MAXIMUM_PARAMETER)
        {
            return Err(codes::INVALID_SCORING_PARAMETER.with(format!(
                "The {flower} scoring parameter {bad} is outside ±{MAXIMUM_PARAMETER}."
            )));
        }
    }
    Ok(options)
}

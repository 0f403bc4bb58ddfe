//! Setup options: starting garnets, the flower scoring mapping (§7) and the
//! piece-replacement ruling at the start (§6).

use serde::{Deserialize, Serialize};
use umpire_domain::Violation;
use utoipa::ToSchema;

use crate::codes;
use crate::flowers::Flower;

/// The largest parameter or garnet amount accepted, so that no score can
/// overflow however a setup is chosen.
pub const MAXIMUM_PARAMETER: i64 = 1_000_000;

/// One rule of the scoring library (§7), with its parameters as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = FlowerFieldsScoringRule)]
pub enum ScoringRule {
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

impl ScoringRule {
    fn parameters(&self) -> Vec<i64> {
        match *self {
            ScoringRule::Garnets => vec![],
            ScoringRule::LargestGroup { per_flower } => vec![per_flower],
            ScoringRule::NeighbourVariety { per_type } => vec![per_type],
            ScoringRule::Mirror { points } => vec![points],
            ScoringRule::Majority { more, equal, fewer } => vec![more, equal, fewer],
            ScoringRule::Edges { edge, corner } => vec![edge, corner],
            ScoringRule::PerFlower { points } => vec![points],
        }
    }
}

/// Which library rule each of the six types scores by. Defaults are the
/// rule book's table (§7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = FlowerFieldsScoringMapping)]
pub struct ScoringMapping {
    pub white: ScoringRule,
    pub red: ScoringRule,
    pub yellow: ScoringRule,
    pub blue: ScoringRule,
    pub purple: ScoringRule,
    pub orange: ScoringRule,
}

impl Default for ScoringMapping {
    fn default() -> Self {
        ScoringMapping {
            white: ScoringRule::Garnets,
            red: ScoringRule::LargestGroup { per_flower: 2 },
            yellow: ScoringRule::NeighbourVariety { per_type: 1 },
            blue: ScoringRule::Mirror { points: 3 },
            purple: ScoringRule::Majority {
                more: 2,
                equal: 1,
                fewer: 0,
            },
            orange: ScoringRule::Edges { edge: 1, corner: 3 },
        }
    }
}

impl ScoringMapping {
    /// The rule of a type; `black` scores nothing and has none.
    pub fn rule_of(&self, flower: Flower) -> Option<ScoringRule> {
        match flower {
            Flower::White => Some(self.white),
            Flower::Red => Some(self.red),
            Flower::Yellow => Some(self.yellow),
            Flower::Blue => Some(self.blue),
            Flower::Purple => Some(self.purple),
            Flower::Orange => Some(self.orange),
            Flower::Black => None,
        }
    }
}

/// Options of a game of Between Flower Fields.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = FlowerFieldsOptions)]
pub struct Options {
    /// Garnets every seat starts with (§4).
    pub starting_garnets: i64,
    /// The scoring rule of each flower type (§7).
    pub scoring: ScoringMapping,
    /// Whether the piece-replacement ruling is in force from the start (§6).
    pub piece_replacement: bool,
}

/// Refuses negative or absurd amounts (§4, §7).
pub fn validate(options: Options) -> Result<Options, Violation> {
    if !(0..=MAXIMUM_PARAMETER).contains(&options.starting_garnets) {
        return Err(codes::INVALID_STARTING_GARNETS.with(format!(
            "`starting_garnets` must be between 0 and {MAXIMUM_PARAMETER}, not {}.",
            options.starting_garnets
        )));
    }
    for flower in Flower::PLANTABLE {
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

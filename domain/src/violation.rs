//! A rule violation: the one error a game's `decide` returns.

use serde::Serialize;

/// Why an action was refused. Violations are data: a stable machine-readable
/// `code` (`<game>.<rule>`), a sentence a person understands naming the
/// offending card, cell or value, and the rule book section that decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error, utoipa::ToSchema)]
#[error("{code}: {message} (rule {rule})")]
pub struct Violation {
    /// Stable code, e.g. `arboretum.cell_not_adjacent`.
    #[schema(example = "arboretum.cell_not_adjacent")]
    pub code: &'static str,
    /// One sentence naming what was wrong.
    #[schema(example = "D5 is not orthogonally adjacent to any planted card.")]
    pub message: String,
    /// The rule book section, e.g. `arboretum §4`.
    #[schema(example = "arboretum §4")]
    pub rule: &'static str,
}

impl Violation {
    pub fn new(code: &'static str, rule: &'static str, message: impl Into<String>) -> Self {
        Violation {
            code,
            message: message.into(),
            rule,
        }
    }
}

/// Shorthand used by game modules: `Err(violation(CODE, RULE, format!(..)))`.
pub fn violation(code: &'static str, rule: &'static str, message: impl Into<String>) -> Violation {
    Violation::new(code, rule, message)
}

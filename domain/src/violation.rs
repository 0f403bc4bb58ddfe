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
    /// Games make violations from a [`ViolationKind`], never from free
    /// strings: see [`ViolationKind::with`].
    pub(crate) fn new(code: &'static str, rule: &'static str, message: impl Into<String>) -> Self {
        Violation {
            code,
            message: message.into(),
            rule,
        }
    }
}

/// One way a game refuses an action: its stable code, the rule book
/// section that decides it, and what it means. Every violation is made from
/// one ([`ViolationKind::with`]), and each game lists all of its own
/// ([`crate::Game::VIOLATIONS`], declared with [`crate::violation_kinds!`]), so the
/// list a game publishes is exactly what its `decide` can answer. One code
/// may be decided by more than one section: it is then one kind per section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViolationKind {
    pub code: &'static str,
    /// The rule book section, e.g. `arboretum §4`: a heading of the
    /// project's rule reference (`docs/rules/`).
    pub rule: &'static str,
    /// One sentence: when an action is refused with this code.
    pub meaning: &'static str,
}

impl ViolationKind {
    /// This refusal, with the sentence naming what was wrong this time.
    pub fn with(&self, message: impl Into<String>) -> Violation {
        Violation::new(self.code, self.rule, message)
    }
}

/// The anchor of a rule book section on its served page (`/rules/<game>`,
/// `api/src/routes/rules.rs`): `§3` → `s3`, `§3.2` → `s3-2`, `§R` → `sR`.
/// `None` for anything that is not a section (`§` and letters, digits and
/// inner dots).
///
/// ```
/// assert_eq!(umpire_domain::violation::section_anchor("§3.2").as_deref(), Some("s3-2"));
/// assert_eq!(umpire_domain::violation::section_anchor("§R").as_deref(), Some("sR"));
/// assert_eq!(umpire_domain::violation::section_anchor("3.2"), None);
/// ```
pub fn section_anchor(section: &str) -> Option<String> {
    let number = section.strip_prefix('§')?;
    let plain = !number.is_empty()
        && !number.starts_with('.')
        && !number.ends_with('.')
        && !number.contains("..")
        && number
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.');
    plain.then(|| format!("s{}", number.replace('.', "-")))
}

/// Where the section a refusal cites is served, as a path on the service:
/// `arboretum §3.2` → `/rules/arboretum#s3-2`. The one place a citation
/// becomes a link (the `rule_url` of error bodies and audit rulings).
/// `None` for a citation that is not `<page> §<section>` (a stored
/// rejection's rule may come from an imported archive).
///
/// ```
/// use umpire_domain::violation::rule_url;
/// assert_eq!(rule_url("arboretum §3.2").as_deref(), Some("/rules/arboretum#s3-2"));
/// assert_eq!(rule_url("draft_cider §R").as_deref(), Some("/rules/draft_cider#sR"));
/// assert_eq!(rule_url("arboretum"), None);
/// assert_eq!(rule_url("../x §3"), None);
/// ```
pub fn rule_url(rule: &str) -> Option<String> {
    let (page, section) = rule.split_once(' ')?;
    let named = !page.is_empty()
        && page
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !named {
        return None;
    }
    Some(format!("/rules/{page}#{}", section_anchor(section)?))
}

/// Declares a game's violation kinds as constants, and `ALL`, the list of
/// every one of them:
///
/// ```
/// umpire_domain::violation_kinds! {
///     /// A cell already holds a card.
///     CELL_OCCUPIED = ("demo.cell_occupied", "demo §4", "The cell already holds a card.");
/// }
/// assert_eq!(ALL, &[CELL_OCCUPIED]);
/// assert_eq!(CELL_OCCUPIED.with("D5 is taken.").code, "demo.cell_occupied");
/// ```
#[macro_export]
macro_rules! violation_kinds {
    ($( $(#[$attr:meta])* $name:ident = ($code:expr, $rule:expr, $meaning:expr); )+) => {
        $(
            $(#[$attr])*
            pub const $name: $crate::ViolationKind = $crate::ViolationKind {
                code: $code,
                rule: $rule,
                meaning: $meaning,
            };
        )+
        /// Every way this game refuses an action.
        pub const ALL: &[$crate::ViolationKind] = &[$($name),+];
    };
}

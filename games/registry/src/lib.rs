//! The one place where every game is registered. Adding a game means adding
//! its crate and one line here; nothing in storage or the API changes.

use umpire_domain::Registry;

/// Every game Umpire plays.
pub fn registry() -> Registry {
    Registry::new()
        .register::<umpire_arboretum::Arboretum>()
        .register::<umpire_treeblox::Treeblox>()
        .register::<umpire_draft_cider::DraftCider>()
        .register::<umpire_flower_fields::FlowerFields>()
}

/// Every rule page's refusals, by the page's name (`docs/rules/<name>.md`,
/// served at `/rules/<name>`): each game's, the clock's, which any game may
/// be played with, the seats' and the umpire's rulings'. The rule-reference tests hold each page
/// to these.
pub fn refusals_by_page() -> Vec<(&'static str, &'static [umpire_domain::ViolationKind])> {
    let mut all: Vec<_> = registry()
        .games()
        .map(|game| (game.id(), game.violation_kinds()))
        .collect();
    all.push(("clock", umpire_domain::clock::ALL));
    all.push(("seats", umpire_domain::seat_tokens::ALL));
    all.push(("umpire", umpire_domain::rulings::ALL));
    all
}

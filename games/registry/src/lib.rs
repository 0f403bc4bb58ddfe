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

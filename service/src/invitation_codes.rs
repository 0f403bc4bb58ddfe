//! Invitations as minted: a code (the game's id, then 128 random bits from
//! the operating system), its link and expiry, and what the store keeps of
//! it (its SHA-256). Creating a game (`games.rs`), reissuing a seat
//! (`invitations.rs`) and a seat's link to another device
//! (`seat_devices.rs`) all mint here.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use umpire_storage::{hash_token, NewInvitation};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::access::new_token;
use crate::error::ServiceError;

/// How long an invitation may be redeemed: 7 days from when it is made.
pub const INVITATION_LIFETIME_DAYS: i64 = 7;

/// One seat's invitation: shown once, to whoever created the game,
/// reissued the seat or (a link to another device) holds the seat.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
pub struct Invitation {
    pub seat: String,
    /// The one-time code (64 hex digits): the game's id, then 128 random
    /// bits.
    pub code: String,
    /// The page that redeems the code: `/join#<code>`, the code in the
    /// fragment, which is never sent to a server.
    #[schema(example = "/join#0f8e4c1a9b2d4e6f8a0b1c2d3e4f5a6b9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f")]
    pub link: String,
    /// RFC 3339: when the code stops being redeemable.
    pub expires_at: String,
}

/// A new invitation of `game_id` for `seat`, for 7 days from `now`: what
/// to show and what to store.
pub(crate) fn mint_invitation(
    game_id: Uuid,
    seat: &str,
    now: DateTime<Utc>,
) -> Result<(Invitation, NewInvitation), ServiceError> {
    mint_invitation_until(
        game_id,
        seat,
        now + Duration::days(INVITATION_LIFETIME_DAYS),
    )
}

/// A new invitation of `game_id` for `seat`, redeemable until
/// `expires_at`, at generation 0 (the store or the caller sets another).
pub(crate) fn mint_invitation_until(
    game_id: Uuid,
    seat: &str,
    expires_at: DateTime<Utc>,
) -> Result<(Invitation, NewInvitation), ServiceError> {
    let secret = &new_token()?[..32];
    let code = format!("{}{secret}", game_id.simple());
    let stored = NewInvitation {
        code_hash: hash_token(&code),
        seat: seat.to_string(),
        generation: 0,
        expires_at,
    };
    let shown = Invitation {
        seat: seat.to_string(),
        link: format!("/join#{code}"),
        code,
        expires_at: umpire_domain::record::format_recorded_at(&expires_at),
    };
    Ok((shown, stored))
}

/// Invitations for every seat of a new game.
pub(crate) fn mint_invitations(
    game_id: Uuid,
    seats: &[String],
) -> Result<(BTreeMap<String, Invitation>, Vec<NewInvitation>), ServiceError> {
    let now = Utc::now();
    let mut shown = BTreeMap::new();
    let mut stored = Vec::new();
    for seat in seats {
        let (invitation, new) = mint_invitation(game_id, seat, now)?;
        shown.insert(seat.clone(), invitation);
        stored.push(new);
    }
    Ok((shown, stored))
}

//! An invitation as stored (`migrations/V9__invitations.sql`), and its
//! insert inside the transaction of whoever makes it: a game's creation
//! (`store`), a seat's reissue (`invitations`) or a page session's
//! (`page_sessions`). Beneath all three, so that the store that creates a
//! game does not name the invitations' operations on it.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::StoreError;

/// An invitation to a seat, as stored: the code's SHA-256 only.
#[derive(Debug, Clone)]
pub struct NewInvitation {
    /// SHA-256 of the code ([`crate::hash_token`]).
    pub code_hash: String,
    pub seat: String,
    /// The seat's generation the invitation (and the token it gives) belongs
    /// to: 0 at creation, a reissue's version after one.
    pub generation: i64,
    pub expires_at: DateTime<Utc>,
}

/// Inserts invitations inside the transaction that creates their game or
/// reissues their seat.
pub(crate) async fn insert_invitations(
    transaction: &deadpool_postgres::Transaction<'_>,
    game_id: Uuid,
    invitations: &[NewInvitation],
) -> Result<(), StoreError> {
    for invitation in invitations {
        transaction
            .execute(
                "INSERT INTO invitations (game_id, code_hash, seat, generation, expires_at)
                 VALUES ($1, $2, $3, $4, $5)",
                &[
                    &game_id,
                    &invitation.code_hash,
                    &invitation.seat,
                    &invitation.generation,
                    &invitation.expires_at,
                ],
            )
            .await?;
    }
    Ok(())
}

//! Seats kept by a browser (`migrations/V12__page_sessions.sql`): a page
//! session, made by redeeming an invitation for it
//! ([`crate::invitations::Grantee::PageSession`]), gives its seat while it
//! has not ended, has not expired and its generation is still the seat's
//! newest (a reissue ends it with the seat's tokens). And a seat's own
//! invitation for another device, stored like any invitation. Insert-only.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::invitation_rows::{insert_invitations, NewInvitation};
use crate::store::{EventStore, TokenGrant};
use crate::StoreError;
use umpire_domain::Actor;

impl EventStore {
    /// The seat a page session (by its secret's hash, [`crate::hash_token`])
    /// gives in a game at `now`, with its generation, if it still gives
    /// one. One query, on keys; nothing about a session is remembered
    /// anywhere, so leaving a device or a reissue ends it at once on
    /// every instance.
    pub async fn page_session_grant(
        &self,
        game_id: Uuid,
        secret_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<TokenGrant>, StoreError> {
        let client = self.pool().get().await?;
        let statement = client
            .prepare_cached(
                "SELECT s.seat, s.generation FROM page_sessions s
                 WHERE s.game_id = $1 AND s.secret_hash = $2 AND s.expires_at > $3
                   AND NOT EXISTS (SELECT 1 FROM page_session_ends e
                                   WHERE e.game_id = $1 AND e.secret_hash = $2)
                   AND s.generation >= COALESCE(
                     (SELECT max(g.generation) FROM seat_generations g
                      WHERE g.game_id = $1 AND g.seat = s.seat), 0)",
            )
            .await?;
        let Some(row) = client
            .query_opt(&statement, &[&game_id, &secret_hash, &now])
            .await?
        else {
            return Ok(None);
        };
        let (seat, generation): (String, i64) = (row.get(0), row.get(1));
        Ok(Some(TokenGrant {
            actor: Actor::Seat(seat),
            generation: u64::try_from(generation).map_err(|_| {
                StoreError::Corrupt(format!(
                    "a page session of game {game_id} has generation {generation}"
                ))
            })?,
        }))
    }

    /// Ends a page session (its browser left the device): refused from
    /// now on. Whether there was such a session to end; ending one twice
    /// changes nothing.
    pub async fn end_page_session(
        &self,
        game_id: Uuid,
        secret_hash: &str,
    ) -> Result<bool, StoreError> {
        let client = self.pool().get().await?;
        let ended = client
            .execute(
                "INSERT INTO page_session_ends (game_id, secret_hash)
                 SELECT game_id, secret_hash FROM page_sessions
                 WHERE game_id = $1 AND secret_hash = $2
                 ON CONFLICT (game_id, secret_hash) DO NOTHING",
                &[&game_id, &secret_hash],
            )
            .await?;
        Ok(ended > 0)
    }

    /// Stores one more invitation of a game (a seat's link to another
    /// device), at the generation it was given: a reissue of the seat
    /// since revokes it as it revokes the umpire's invitations.
    pub async fn add_invitation(
        &self,
        game_id: Uuid,
        invitation: &NewInvitation,
    ) -> Result<(), StoreError> {
        let mut client = self.pool().get().await?;
        let transaction = client.transaction().await?;
        insert_invitations(&transaction, game_id, std::slice::from_ref(invitation)).await?;
        transaction.commit().await?;
        Ok(())
    }
}

//! Seats by invitation (`migrations/V9__invitations.sql`): one-time codes
//! exchanged for a seat's token, and the umpire's reissue of a seat's
//! token, which revokes every earlier token of the seat and is recorded in
//! the log in the same transaction. A code is redeemed for a bearer token
//! or for a page session (`page_sessions.rs`). Insert-only: nothing here
//! updates or deletes a row.

use chrono::{DateTime, Utc};
use tokio_postgres::error::SqlState;
use uuid::Uuid;

use crate::append::{link_events, Head, NewEvent};
use crate::group_commit::insert_appends;
use crate::invitation_rows::{insert_invitations, NewInvitation};
use crate::store::EventStore;
use crate::StoreError;
use umpire_domain::RecordedEvent;

/// What redeeming a code did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Redemption {
    /// The code was good: the token given was stored for this seat.
    Redeemed { seat: String },
    /// No invitation has this code in this game.
    Unknown,
    /// The code was redeemed before (by this or a concurrent request).
    Used,
    /// The code's time ran out before it was redeemed.
    Expired,
    /// The seat's token was reissued since: a newer invitation replaced it.
    Revoked,
}

/// Whom a redeemed invitation gives its seat to.
#[derive(Debug, Clone, Copy)]
pub enum Grantee<'a> {
    /// A bearer token, by its SHA-256 ([`crate::hash_token`]): the client
    /// is answered the token.
    Token { token_hash: &'a str },
    /// A page session, by its secret's SHA-256: the browser keeps the
    /// secret in a cookie until `expires_at` (`migrations/V12`).
    PageSession {
        secret_hash: &'a str,
        expires_at: DateTime<Utc>,
    },
}

impl EventStore {
    /// Records the reissue of `seat`'s token in one transaction: `events`
    /// (the `seat_token_reissued` event) appended at `head`, the seat's new
    /// generation (that event's version: every earlier token of the seat
    /// stops authorising on commit) and `invitation` of that generation
    /// (its `generation` is set here). A stale head is a
    /// [`StoreError::Conflict`], and nothing is written.
    pub async fn reissue_seat(
        &self,
        head: &Head,
        events: Vec<NewEvent>,
        seat: &str,
        mut invitation: NewInvitation,
    ) -> Result<(Vec<RecordedEvent>, Head), StoreError> {
        let game_id = head.game_id();
        let linked = link_events(head, events, None);
        let generation = linked
            .events
            .first()
            .map(|event| event.seq as i64)
            .ok_or_else(|| StoreError::Corrupt("a reissue records one event".into()))?;
        invitation.generation = generation;
        let mut client = self.pool().get().await?;
        let transaction = client.transaction().await?;
        match insert_appends(&transaction, &[&linked]).await {
            Ok(inserted) if inserted == linked.events.len() as u64 => {}
            Ok(_) => return Err(StoreError::GameNotFound(game_id)),
            Err(error) if error.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                return Err(StoreError::Conflict {
                    expected: head.version(),
                    actual: head.version() + 1,
                })
            }
            Err(error) => return Err(error.into()),
        }
        transaction
            .execute(
                "INSERT INTO seat_generations (game_id, seat, generation) VALUES ($1, $2, $3)",
                &[&game_id, &seat, &generation],
            )
            .await?;
        insert_invitations(&transaction, game_id, std::slice::from_ref(&invitation)).await?;
        transaction.commit().await?;
        let next = head.after(&linked.events);
        Ok((linked.events, next))
    }

    /// Redeems an invitation's code once, at `now`, for a bearer token:
    /// [`EventStore::redeem_invitation_for`] a [`Grantee::Token`].
    pub async fn redeem_invitation(
        &self,
        game_id: Uuid,
        code_hash: &str,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Redemption, StoreError> {
        self.redeem_invitation_for(game_id, code_hash, &Grantee::Token { token_hash }, now)
            .await
    }

    /// Redeems an invitation's code once, at `now`: on success `grantee`
    /// (a token's or a page session's hash) is stored for the invitation's
    /// seat and generation. One transaction; of two concurrent redemptions
    /// of one code, the second waits on the first's `redemptions` key and
    /// then finds the code used.
    pub async fn redeem_invitation_for(
        &self,
        game_id: Uuid,
        code_hash: &str,
        grantee: &Grantee<'_>,
        now: DateTime<Utc>,
    ) -> Result<Redemption, StoreError> {
        let mut client = self.pool().get().await?;
        let transaction = client.transaction().await?;
        let Some(row) = transaction
            .query_opt(
                "SELECT i.seat, i.generation, i.expires_at,
                        COALESCE((SELECT max(g.generation) FROM seat_generations g
                                  WHERE g.game_id = i.game_id AND g.seat = i.seat), 0)
                 FROM invitations i WHERE i.game_id = $1 AND i.code_hash = $2",
                &[&game_id, &code_hash],
            )
            .await?
        else {
            return Ok(Redemption::Unknown);
        };
        let (seat, generation, expires_at, newest): (String, i64, DateTime<Utc>, i64) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        let taken = transaction
            .execute(
                "INSERT INTO redemptions (game_id, code_hash) VALUES ($1, $2)
                 ON CONFLICT (game_id, code_hash) DO NOTHING",
                &[&game_id, &code_hash],
            )
            .await?;
        if taken == 0 {
            return Ok(Redemption::Used);
        }
        if expires_at <= now {
            return Ok(Redemption::Expired);
        }
        if generation < newest {
            return Ok(Redemption::Revoked);
        }
        match grantee {
            Grantee::Token { token_hash } => {
                transaction
                    .execute(
                        "INSERT INTO tokens (game_id, token_hash, role, seat, generation)
                         VALUES ($1, $2, 'seat', $3, $4)",
                        &[&game_id, token_hash, &seat, &generation],
                    )
                    .await?
            }
            Grantee::PageSession {
                secret_hash,
                expires_at,
            } => transaction
                .execute(
                    "INSERT INTO page_sessions (game_id, secret_hash, seat, generation, expires_at)
                         VALUES ($1, $2, $3, $4, $5)",
                    &[&game_id, secret_hash, &seat, &generation, expires_at],
                )
                .await?,
        };
        transaction.commit().await?;
        Ok(Redemption::Redeemed { seat })
    }
}

//! A seat on its player's devices: a browser that keeps the seat across
//! tabs and restarts (a page session), and a seat's own one-time link that
//! takes it to another device.
//!
//! A page session is made by redeeming an invitation with `keep: cookie`
//! (`invitations.rs`): a secret of 256 random bits, which the API sets as
//! an HttpOnly cookie scoped to the game's API paths, so that no script of
//! the page can read it, and stores only as its SHA-256. It gives its seat
//! until it is left (the page's "Leave this device"), until it expires
//! ([`PAGE_SESSION_DAYS`], the cookie's own lifetime), or until the umpire
//! reissues the seat: it belongs to the seat's generation, like a token,
//! so a reissue ends it at once. Nothing about a session is remembered by
//! an instance: every request asks the store (one query on keys), so each
//! of those ends holds everywhere at once. A session is never a bearer
//! token, nor a token a session.
//!
//! A device link is an invitation the seat makes for itself
//! (`POST /v1/games/{id}/device-links`): one use, [`DEVICE_LINK_MINUTES`]
//! to use it, at the generation of the credential that made it (a reissue
//! in between revokes it), redeemed by `/join#<code>` like any invitation
//! and so throttled like any failed redemption. The device that made it
//! keeps the seat: a link that took the seat away would strand the player
//! whenever the other device failed to open it. Leaving is the page's own
//! control, and the umpire's reissue ends every device at once.

use std::time::Instant;

use chrono::{DateTime, Duration, Utc};
use umpire_domain::{Actor, Viewer};
use umpire_storage::{hash_token, TokenGrant};
use uuid::Uuid;

use crate::error::ServiceError;
use crate::games::GameService;
use crate::grants::Credential;
use crate::invitation_codes::{mint_invitation_until, Invitation};

/// How long a page session (and its cookie) lasts: 30 days from the
/// redemption that made it. A game that lasts longer is taken up again by
/// a device link from another device, or by the umpire's reissue.
pub const PAGE_SESSION_DAYS: i64 = 30;

/// How long a seat's link to another device may be redeemed.
pub const DEVICE_LINK_MINUTES: i64 = 10;

/// What a request presents to say who sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Presented {
    /// Nothing: a spectator.
    Nothing,
    /// A bearer token (the umpire's or a seat's).
    Token(String),
    /// A page session's secret, from the seat's cookie.
    PageSession(String),
}

/// A page session as made: its secret, shown once (as a cookie), and until
/// when it gives its seat.
#[derive(Debug, Clone)]
pub struct PageSession {
    pub game_id: Uuid,
    pub secret: String,
    pub expires_at: DateTime<Utc>,
}

impl PageSession {
    pub(crate) fn new(game_id: Uuid, secret: String, now: DateTime<Utc>) -> Self {
        PageSession {
            game_id,
            secret,
            expires_at: now + Duration::days(PAGE_SESSION_DAYS),
        }
    }
}

/// A page session that no longer gives a seat, or never did.
pub fn page_session_ended() -> ServiceError {
    ServiceError::Unauthenticated {
        code: "page_session_ended",
        message: "This browser no longer holds a seat in this game: it left the device, its \
                  30 days ran out, or the umpire reissued the seat. Open an invitation or a \
                  device link to take the seat again."
            .into(),
    }
}

impl GameService {
    /// Who presents `presented` to a game: as [`GameService::viewer`] for a
    /// token; a page session is asked of the store on every request.
    pub async fn viewer_of(
        &self,
        game_id: Uuid,
        presented: &Presented,
    ) -> Result<Viewer<String>, ServiceError> {
        match presented {
            Presented::Nothing => self.viewer(game_id, None).await,
            Presented::Token(token) => self.viewer(game_id, Some(token)).await,
            Presented::PageSession(secret) => {
                self.record(game_id).await?;
                Ok(Viewer::from(
                    self.page_session_grant(game_id, secret).await?.actor,
                ))
            }
        }
    }

    /// Who presents `presented` to submit an action: as
    /// [`GameService::credential`] for a token; a page session is checked
    /// during the request, never remembered.
    pub async fn credential_of(
        &self,
        game_id: Uuid,
        presented: &Presented,
    ) -> Result<Credential, ServiceError> {
        match presented {
            Presented::Nothing => self.credential(game_id, None).await,
            Presented::Token(token) => self.credential(game_id, Some(token)).await,
            Presented::PageSession(_) => Ok(Credential::checked(
                self.viewer_of(game_id, presented).await?,
            )),
        }
    }

    async fn page_session_grant(
        &self,
        game_id: Uuid,
        secret: &str,
    ) -> Result<TokenGrant, ServiceError> {
        self.store
            .page_session_grant(game_id, &hash_token(secret), Utc::now())
            .await?
            .ok_or_else(page_session_ended)
    }

    /// Ends a page session: its browser left the device. Ending one that
    /// has ended, or that never was, is no error (the cookie is cleared
    /// all the same).
    pub async fn end_page_session(&self, game_id: Uuid, secret: &str) -> Result<(), ServiceError> {
        self.record(game_id).await?;
        self.store
            .end_page_session(game_id, &hash_token(secret))
            .await?;
        Ok(())
    }

    /// A one-time link that gives the presenting seat to another device:
    /// only a seat makes one, for itself, at most so often
    /// ([`crate::throttle::DEVICE_LINKS_PER_SEAT`]).
    pub async fn make_device_link(
        &self,
        game_id: Uuid,
        presented: &Presented,
    ) -> Result<Invitation, ServiceError> {
        self.record(game_id).await?;
        let grant = match presented {
            Presented::Nothing => {
                return Err(ServiceError::Unauthenticated {
                    code: "missing_token",
                    message: "A link to another device is made by its seat: open the game as \
                              the seat, or send its token as Authorization: Bearer <token>."
                        .into(),
                })
            }
            Presented::Token(token) => self
                .store
                .token_grant(game_id, &hash_token(token))
                .await?
                .ok_or_else(|| ServiceError::Unauthenticated {
                code: "invalid_token",
                message: "This token is not valid for this game.".into(),
            })?,
            Presented::PageSession(secret) => self.page_session_grant(game_id, secret).await?,
        };
        let Actor::Seat(seat) = grant.actor else {
            return Err(ServiceError::Forbidden {
                code: "seat_only",
                message: "Only a seat makes a link to another device, for itself; the umpire \
                          hands a seat a new invitation by reissuing it."
                    .into(),
            });
        };
        self.device_links
            .take((game_id, seat.clone()), Instant::now())
            .map_err(|retry_after_seconds| ServiceError::Throttled {
                code: "too_many_device_links",
                message: "This seat made links to another device faster than a seat may.".into(),
                retry_after_seconds,
            })?;
        let expires_at = Utc::now() + Duration::minutes(DEVICE_LINK_MINUTES);
        let (invitation, mut stored) = mint_invitation_until(game_id, &seat, expires_at)?;
        stored.generation = i64::try_from(grant.generation)
            .map_err(|_| ServiceError::Internal("a generation past i64".into()))?;
        self.store.add_invitation(game_id, &stored).await?;
        Ok(invitation)
    }
}

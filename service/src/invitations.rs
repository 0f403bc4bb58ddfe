//! Seats by invitation: each seat of a new game gets a one-time code,
//! which `POST /v1/invitations/redeem` exchanges once for a token of that
//! seat, or for a page session its browser keeps (`seat_devices.rs`,
//! which also mints a seat's own link to another device); the umpire's reissue of a seat's token revokes every earlier one
//! and hands out a new invitation, and the game's log records it
//! (`seat_token_reissued`, `umpire_domain::seat_tokens`), never the token
//! or the code.
//!
//! A code is the game's id (32 hex digits, not secret: it is in the game's
//! address) followed by 128 random bits from the operating system (32 hex
//! digits), so that a redemption touches one game, by key, like every
//! other request. Codes and tokens are stored as SHA-256 hashes only. A
//! link carries the code in its fragment (`/join#<code>`), which browsers
//! send to no server and put in no `Referer`.
//!
//! Answers: an unknown code (or one not even shaped like a code) is 404
//! `invitation_unknown`; a used one 410 `invitation_used`, an expired one
//! 410 `invitation_expired`, and one whose seat was reissued since 410
//! `invitation_revoked`. Telling "used" from "unknown" lets a person
//! understand a link that no longer works, and tells a prober nothing: a
//! code that is used was first guessed among 2^128.

use std::sync::Arc;
use std::time::Instant;

use chrono::Utc;
use serde::{Deserialize, Serialize};
use umpire_domain::{actor_label, seat_tokens, Actor, Viewer};
use umpire_storage::{hash_token, Grantee, NewEvent, Redemption, StoreError};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::access::new_token;
use crate::client_address::ClientAddress;
use crate::error::ServiceError;
use crate::games::GameService;
use crate::grants::Credential;
use crate::invitation_codes::mint_invitation;
pub use crate::invitation_codes::{Invitation, INVITATION_LIFETIME_DAYS};
use crate::model::SubmitActionRequest;
use crate::seat_devices::PageSession;

/// How many times a reissue is tried again after another instance
/// appended to the game in between.
const REISSUE_ATTEMPTS: u32 = 8;

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RedeemInvitationRequest {
    /// The code of an invitation (what follows `#` in its link).
    pub code: String,
    /// Where the seat is kept: `token` (the default) answers a bearer
    /// token; `cookie`, which only the game's own page asks for, keeps it
    /// in this browser instead (see [`KeptAs`]).
    #[serde(default)]
    pub keep: KeptAs,
}

/// Where a redeemed seat is kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeptAs {
    /// A bearer token, in the answer, for API clients.
    #[default]
    Token,
    /// A page session: a secret the answer sets as an HttpOnly,
    /// SameSite=Strict cookie scoped to the game's API paths, which the
    /// page's script cannot read and only the page's own origin may use
    /// (`seat_devices.rs`). The answer then holds no token.
    Cookie,
}

/// What a redeemed invitation gives: the seat, and its new token, shown
/// once, unless the seat is kept in a cookie.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
pub struct RedeemedInvitation {
    pub game_id: Uuid,
    pub seat: String,
    /// The seat's token: `Authorization: Bearer <token>`. Absent when the
    /// seat is kept in a cookie (`keep: cookie`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// A redemption as the service made it: the answer, and the page session
/// to set as a cookie when one was asked for.
#[derive(Debug, Clone)]
pub struct Redeemed {
    pub answer: RedeemedInvitation,
    pub page_session: Option<PageSession>,
}

/// A seat's token reissued: every earlier token of the seat is revoked,
/// and this invitation gives the new one.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
pub struct ReissuedSeat {
    pub game_id: Uuid,
    pub seat: String,
    /// The game's version after the `seat_token_reissued` event.
    pub version: u64,
    pub invitation: Invitation,
}

/// The game a code belongs to, if it is shaped like a code.
fn game_of(code: &str) -> Option<Uuid> {
    let well_formed = code.len() == 64
        && code
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    well_formed
        .then(|| Uuid::try_parse(&code[..32]).ok())
        .flatten()
}

fn gone(code: &'static str, message: &str) -> ServiceError {
    ServiceError::Gone {
        code,
        message: message.to_string(),
    }
}

impl GameService {
    /// Exchanges an invitation's code, once, for a new token of its seat.
    /// A client address whose redemptions keep failing is slowed down
    /// (`throttle.rs`): codes cannot be guessed at the database's speed.
    pub async fn redeem_invitation(
        &self,
        code: &str,
        keep: KeptAs,
        client: Option<ClientAddress>,
    ) -> Result<Redeemed, ServiceError> {
        let throttled = |retry_after_seconds| ServiceError::Throttled {
            code: "too_many_failed_redemptions",
            message: "This address redeemed too many unknown, used or expired invitations; \
                      check the link."
                .into(),
            retry_after_seconds,
        };
        // Only a failure is charged, but one is refused while failures are
        // over budget, or a guesser would go on until it hit.
        self.redemption_failures
            .check(client, Instant::now())
            .map_err(throttled)?;
        let redeemed = self.redeem(code, keep).await;
        if let Ok(Redeemed { answer, .. }) = &redeemed {
            self.join_the_clock(answer).await;
        }
        if matches!(
            redeemed,
            Err(ServiceError::NotFound { .. } | ServiceError::Gone { .. })
        ) {
            // The bucket was checked above; another failure from the same
            // address meanwhile may have emptied it, which changes nothing
            // for this answer.
            let _ = self.redemption_failures.take(client, Instant::now());
        }
        redeemed
    }

    /// A seat that sits down by its invitation joins its game's clock, if
    /// the clock waits for its seats and the seat has not joined (the last
    /// to join starts it, `docs/rules/clock.md` §5). The seat has its token
    /// whatever becomes of this: a join that fails (the game contended,
    /// its log full) leaves the umpire to start the clock.
    async fn join_the_clock(&self, redeemed: &RedeemedInvitation) {
        let waiting = match self.latest(redeemed.game_id).await {
            Ok(fold) => fold.game.clock.as_ref().is_some_and(|clock| {
                clock
                    .status()
                    .waiting_for
                    .is_some_and(|seats| seats.contains(&redeemed.seat))
            }),
            Err(_) => false,
        };
        if !waiting {
            return;
        }
        let credential = Credential::checked(Viewer::Seat(redeemed.seat.clone()));
        let join = SubmitActionRequest {
            action: serde_json::json!({"type": "clock_join"}),
            expected_version: None,
        };
        if let Err(error) = self.submit(redeemed.game_id, &credential, join, None).await {
            tracing::warn!(
                game_id = %redeemed.game_id,
                seat = %redeemed.seat,
                code = %error.body().code,
                "a redeemed seat did not join the game's clock; the umpire may start it"
            );
        }
    }

    async fn redeem(&self, code: &str, keep: KeptAs) -> Result<Redeemed, ServiceError> {
        let unknown = || ServiceError::NotFound {
            code: "invitation_unknown",
            message: "This invitation is not known: check that the whole link was copied.".into(),
        };
        let game_id = game_of(code).ok_or_else(unknown)?;
        let now = Utc::now();
        let secret = new_token()?;
        let secret_hash = hash_token(&secret);
        let page_session = PageSession::new(game_id, secret, now);
        let grantee = match keep {
            KeptAs::Token => Grantee::Token {
                token_hash: &secret_hash,
            },
            KeptAs::Cookie => Grantee::PageSession {
                secret_hash: &secret_hash,
                expires_at: page_session.expires_at,
            },
        };
        match self
            .store
            .redeem_invitation_for(game_id, &hash_token(code), &grantee, now)
            .await?
        {
            Redemption::Redeemed { seat } => Ok(match keep {
                KeptAs::Token => Redeemed {
                    answer: RedeemedInvitation {
                        game_id,
                        seat,
                        token: Some(page_session.secret),
                    },
                    page_session: None,
                },
                KeptAs::Cookie => Redeemed {
                    answer: RedeemedInvitation {
                        game_id,
                        seat,
                        token: None,
                    },
                    page_session: Some(page_session),
                },
            }),
            Redemption::Unknown => Err(unknown()),
            Redemption::Used => Err(gone(
                "invitation_used",
                "This invitation was already used: an invitation works once. Ask the umpire \
                 for a new one if the seat's token was lost.",
            )),
            Redemption::Expired => Err(gone(
                "invitation_expired",
                "This invitation has expired (an umpire's invitation lasts 7 days, a seat's \
                 link to another device 10 minutes). Ask for a new one.",
            )),
            Redemption::Revoked => Err(gone(
                "invitation_revoked",
                "The umpire has reissued this seat's token since this invitation was made, \
                 which revoked it. Ask the umpire for the new invitation.",
            )),
        }
    }

    /// Reissues `seat`'s token for the umpire (or the admin, `viewer`
    /// `None`): every earlier token of the seat stops authorising, the log
    /// records `seat_token_reissued { seat }` by the umpire, and the new
    /// invitation is answered. Refused by the rules of `docs/rules/seats.md`
    /// §2 (`seat_tokens::decide`, the one place they are kept): for a
    /// seat's token (`seats.umpire_only`), a seat the game lacks, and once
    /// the game is over (its log is closed).
    pub async fn reissue_seat(
        &self,
        game_id: Uuid,
        seat: &str,
        viewer: Option<&Viewer<String>>,
    ) -> Result<ReissuedSeat, ServiceError> {
        let actor = reissuer(viewer)?;
        let deadline = Instant::now() + crate::submit::SUBMIT_DEADLINE;
        let _turn = self
            .turns
            .take(game_id, deadline)
            .await
            .map_err(|_| crate::submit::contended(game_id))?;
        let action = Arc::new(seat_tokens::reissue_action(seat));
        for _ in 0..REISSUE_ATTEMPTS {
            let fold = self.latest(game_id).await?;
            let decision = seat_tokens::decide(fold.game.state.as_ref(), &actor, &action)?;
            crate::log_length::check_room(fold.head.version(), decision.events.len())?;
            crate::throttle::admit_umpire_extra(&self.umpire_extras, game_id)?;
            let events = NewEvent::all(
                decision.events,
                &actor_label::write(&Actor::<String>::Umpire),
                &action,
                fold.record.rules_version,
            );
            let (invitation, stored) = mint_invitation(game_id, seat, Utc::now())?;
            match self
                .store
                .reissue_seat(&fold.head, events, seat, stored)
                .await
            {
                Ok((recorded, head)) => {
                    let version = head.version();
                    if let Ok(next) = fold.followed_by(recorded, decision.after, head) {
                        self.folds.remember(game_id, Arc::new(next));
                    }
                    return Ok(ReissuedSeat {
                        game_id,
                        seat: seat.to_string(),
                        version,
                        invitation,
                    });
                }
                // Another instance appended in between: decide again.
                Err(StoreError::Conflict { .. }) => continue,
                Err(other) => return Err(other.into()),
            }
        }
        Err(crate::submit::contended(game_id))
    }
}

/// Who asks for a reissue: the admin (no viewer) as the umpire, a seat or
/// the umpire as itself, for the rules to decide; without a token, no one.
fn reissuer(viewer: Option<&Viewer<String>>) -> Result<Actor<String>, ServiceError> {
    match viewer.map(Viewer::actor) {
        None => Ok(Actor::Umpire),
        Some(Some(actor)) => Ok(actor.cloned()),
        Some(None) => Err(ServiceError::Unauthenticated {
            code: "missing_token",
            message: "Reissuing a seat's token needs the umpire token: \
                      Authorization: Bearer <token>."
                .into(),
        }),
    }
}

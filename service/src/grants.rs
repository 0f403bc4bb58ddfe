//! Tokens resolved into who presents them, and which grants an instance may
//! remember.
//!
//! The umpire's token never changes once issued: its grant is remembered.
//! A seat's token is revoked by a reissue (`invitations.rs`), which any
//! instance may make, so a read looks it up every time (one query on
//! keys): a read must stop at once for a revoked token. A submission need
//! not: a reissue is an event in the game's log, so a grant the store
//! confirmed when the log held `valid_at` events stays valid as long as
//! the log holds no later reissue of that seat. A submission is decided on
//! a fold and appended only if that fold is still the log's head (else the
//! append conflicts and it is decided again on a fresher fold), so checking
//! the fold it is decided on for a reissue after `valid_at` is as strict as
//! asking the store, and costs no query ([`Credential`]).
//!
//! A refusal is never remembered, so guessing tokens cannot fill the cache.

use std::num::NonZeroUsize;

use lru::LruCache;
use parking_lot::Mutex;
use umpire_domain::{Actor, Viewer};
use umpire_storage::{hash_token, EventStore};
use uuid::Uuid;

use crate::error::ServiceError;
use crate::fold::Fold;
use crate::folds::Folds;

/// How many tokens' grants an instance keeps (a few per cached game).
const CACHED_TOKENS: usize = 16384;

/// What the store said of a token: whom it lets act, and how many events
/// the game's log held at least when it said so.
#[derive(Debug, Clone)]
struct Grant {
    actor: Actor<String>,
    valid_at: u64,
}

/// Grants by `(game, token hash)`, the least recently used forgotten first.
pub(crate) struct Grants(Mutex<LruCache<(Uuid, String), Grant>>);

impl Default for Grants {
    fn default() -> Self {
        Grants(Mutex::new(LruCache::new(
            NonZeroUsize::new(CACHED_TOKENS).expect("non-zero"),
        )))
    }
}

/// Who sends a submission, and how far their grant was checked.
#[derive(Debug, Clone)]
pub struct Credential {
    pub viewer: Viewer<String>,
    /// A seat's grant remembered from an earlier request: the token's hash,
    /// and the version at which the store last found it valid. Checked
    /// against the fold the submission is decided on
    /// ([`Grants::confirm`]). `None` when the store was asked
    /// during this request, or for the umpire and spectators.
    remembered: Option<(String, u64)>,
}

impl Credential {
    /// A viewer checked during this request.
    pub fn checked(viewer: Viewer<String>) -> Self {
        Credential {
            viewer,
            remembered: None,
        }
    }

    /// Whether the grant was remembered rather than asked of the store.
    pub(crate) fn is_remembered(&self) -> bool {
        self.remembered.is_some()
    }
}

impl Grants {
    /// Whom `token` lets act in a game, asked of the store for a seat: for
    /// reads, which must stop at once for a revoked token.
    pub(crate) async fn viewer(
        &self,
        store: &EventStore,
        folds: &Folds,
        game_id: Uuid,
        token: &str,
    ) -> Result<Viewer<String>, ServiceError> {
        let key = (game_id, hash_token(token));
        if let Some(Grant {
            actor: Actor::Umpire,
            ..
        }) = self.0.lock().get(&key)
        {
            return Ok(Viewer::Umpire);
        }
        Ok(Viewer::from(self.looked_up(store, folds, key).await?.actor))
    }

    /// Who presents `token` to submit an action: as [`Grants::viewer`],
    /// except that a seat's remembered grant is taken as it is, to be
    /// confirmed on the fold the action is decided on ([`Grants::confirm`]).
    pub(crate) async fn credential(
        &self,
        store: &EventStore,
        folds: &Folds,
        game_id: Uuid,
        token: &str,
    ) -> Result<Credential, ServiceError> {
        let key = (game_id, hash_token(token));
        let remembered = self.0.lock().get(&key).cloned();
        Ok(match remembered {
            Some(Grant {
                actor: Actor::Seat(seat),
                valid_at,
            }) => Credential {
                viewer: Viewer::Seat(seat),
                remembered: Some((key.1, valid_at)),
            },
            Some(grant) => Credential::checked(Viewer::from(grant.actor)),
            None => {
                Credential::checked(Viewer::from(self.looked_up(store, folds, key).await?.actor))
            }
        })
    }

    /// Fails with `invalid_token` unless the credential's grant holds at
    /// `game`'s version: a remembered seat grant is asked of the store again
    /// only when `game` holds a reissue of the seat made after the store
    /// last found it valid.
    pub(crate) async fn confirm(
        &self,
        store: &EventStore,
        credential: &Credential,
        game: &Fold,
    ) -> Result<(), ServiceError> {
        let (Viewer::Seat(seat), Some((token_hash, valid_at))) =
            (&credential.viewer, &credential.remembered)
        else {
            return Ok(());
        };
        if !game.reissued_after(seat, *valid_at) {
            return Ok(());
        }
        let key = (game.record.game_id, token_hash.clone());
        // Asked after `game` was read: valid, if at all, at its version.
        let grant = self.looked_up_at(store, key, game.head.version()).await?;
        match grant.actor {
            Actor::Seat(now) if &now == seat => Ok(()),
            _ => Err(invalid_token()),
        }
    }

    /// The store's grant for a token, remembered; `invalid_token` when
    /// there is none.
    async fn looked_up(
        &self,
        store: &EventStore,
        folds: &Folds,
        key: (Uuid, String),
    ) -> Result<Grant, ServiceError> {
        // The log held at least the cached fold's events before the store
        // is asked: a lower bound of the version the answer holds at.
        let valid_at = folds.cached(key.0).map_or(0, |fold| fold.head.version());
        self.looked_up_at(store, key, valid_at).await
    }

    async fn looked_up_at(
        &self,
        store: &EventStore,
        key: (Uuid, String),
        valid_at: u64,
    ) -> Result<Grant, ServiceError> {
        let Some(stored) = store.token_grant(key.0, &key.1).await? else {
            self.0.lock().pop(&key);
            return Err(invalid_token());
        };
        let grant = Grant {
            actor: stored.actor,
            valid_at,
        };
        self.0.lock().put(key, grant.clone());
        Ok(grant)
    }
}

fn invalid_token() -> ServiceError {
    ServiceError::Unauthenticated {
        code: "invalid_token",
        message: "This token is not valid for this game.".into(),
    }
}

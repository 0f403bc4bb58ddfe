//! What a viewer may read of a game — state, score, events, legal actions,
//! a dry run — at any version, each through the game's redaction for that
//! viewer.

use serde_json::Value;
use std::borrow::Cow;

use umpire_domain::erased::{hidden_event, DecodedEvent, Shown, HIDDEN_EVENT_TYPE};
use umpire_domain::record::SYSTEM_LABEL;
use umpire_domain::{DynMatch, GameError, RecordedEvent};
use uuid::Uuid;

use crate::error::ServiceError;
use crate::games::GameService;
use crate::model::{
    ActionCheck, EventEnvelope, EventPage, GameType, GameTypes, LegalActions, ScoreResponse,
    ShownEvent, StateResponse,
};
use crate::principal::Principal;

/// Page size of the event log.
pub const DEFAULT_EVENT_PAGE: u64 = 100;
pub const MAX_EVENT_PAGE: u64 = 1000;

/// An event as `principal` may see it, judged against the latest state
/// `now`. An event it may not see is a placeholder in its place (`{"type":
/// "hidden"}`), so that every viewer's sequence is gap-free: its number and
/// time, and that the system (setup) recorded it, are public; who acted is
/// not, since a secret move can be a seat's own.
pub(crate) fn envelope(
    now: &dyn DynMatch,
    event: &RecordedEvent,
    principal: &Principal,
) -> Result<EventEnvelope, ServiceError> {
    let shown = now.show_event(
        &event.payload,
        &DecodedEvent::default(),
        &principal.viewer(),
    )?;
    Ok(shown_event(event, shown, principal).into_envelope())
}

/// `event` as `principal` is shown it, borrowed from the stored event. A
/// hidden event's placeholder is the same for every viewer it is hidden
/// from.
pub(crate) fn shown_event<'a>(
    event: &'a RecordedEvent,
    shown: Shown,
    principal: &Principal,
) -> ShownEvent<'a> {
    let umpire = principal.is_umpire();
    let payload = match shown {
        Shown::Whole => Cow::Borrowed(&event.payload),
        Shown::Redacted(redacted) => Cow::Owned(redacted),
        Shown::Hidden => {
            return ShownEvent {
                seq: event.seq,
                actor: if event.actor == SYSTEM_LABEL {
                    SYSTEM_LABEL
                } else {
                    HIDDEN_EVENT_TYPE
                },
                recorded_at: &event.recorded_at,
                rules_version: event.rules_version,
                payload: Cow::Owned(hidden_event()),
                action: None,
                prev_hash: None,
                hash: None,
            }
        }
    };
    let own_action = umpire || acted(principal, event);
    ShownEvent {
        seq: event.seq,
        actor: &event.actor,
        recorded_at: &event.recorded_at,
        rules_version: event.rules_version,
        payload,
        action: (own_action && !event.action.is_null()).then_some(&event.action),
        prev_hash: umpire.then_some(event.prev_hash.as_str()),
        hash: umpire.then_some(event.hash.as_str()),
    }
}

/// Whether `principal` is the seat (or the umpire) whose action `event`
/// records: the action is shown to its actor.
pub(crate) fn acted(principal: &Principal, event: &RecordedEvent) -> bool {
    principal
        .label()
        .is_some_and(|label| label.is(&event.actor))
}

/// Several events as `principal` may see them.
pub(crate) fn envelopes<'a>(
    now: &dyn DynMatch,
    events: impl IntoIterator<Item = &'a RecordedEvent>,
    principal: &Principal,
) -> Result<Vec<EventEnvelope>, ServiceError> {
    events
        .into_iter()
        .map(|event| envelope(now, event, principal))
        .collect()
}

impl GameService {
    /// Every registered game, with its seats, options and their defaults.
    pub fn game_types(&self) -> Result<GameTypes, ServiceError> {
        let games = self
            .registry
            .games()
            .map(|game| {
                let default_options = game.validate_options(&Value::Null)?;
                Ok(GameType {
                    game: game.id().to_string(),
                    rules_version: game.rules_version(),
                    seats: game.seats(&default_options)?,
                    default_options,
                    options_schema: game.schemas().options,
                })
            })
            .collect::<Result<_, GameError>>()
            .map_err(|e| ServiceError::Internal(format!("a registered game's defaults: {e}")))?;
        Ok(GameTypes { games })
    }

    /// Whether `action` would be accepted at version `at` (default: now),
    /// without recording anything. A seat learns only legal or the
    /// violation (see `umpire_domain::dry_run`).
    pub async fn check(
        &self,
        game_id: Uuid,
        principal: &Principal,
        action: &Value,
        at: Option<u64>,
    ) -> Result<ActionCheck, ServiceError> {
        let actor = principal.actor()?;
        let loaded = self.load(game_id, at).await?;
        let at = loaded.state().version();
        let decision = match loaded.state().decide(&actor, action) {
            Ok(events) => Ok(events),
            Err(GameError::Violation(violation)) => Err(violation),
            Err(other) => return Err(other.into()),
        };
        let answer = umpire_domain::dry_run(decision, &actor);
        Ok(ActionCheck {
            game: loaded.record().game.clone(),
            legal: answer.legal,
            at,
            events: answer.events,
            violation: answer
                .violation
                .map(|violation| ServiceError::Violation(violation).body()),
        })
    }

    pub async fn legal_actions(
        &self,
        game_id: Uuid,
        principal: &Principal,
    ) -> Result<LegalActions, ServiceError> {
        let actor = principal.actor()?;
        let loaded = self.load(game_id, None).await?;
        Ok(LegalActions {
            game: loaded.record().game.clone(),
            version: loaded.state().version(),
            actions: loaded.state().legal_actions(&actor)?,
        })
    }

    pub async fn state(
        &self,
        game_id: Uuid,
        principal: &Principal,
        at: Option<u64>,
    ) -> Result<StateResponse, ServiceError> {
        let loaded = self.load(game_id, at).await?;
        Ok(StateResponse {
            id: game_id,
            game: loaded.record().game.clone(),
            version: loaded.state().version(),
            status: loaded.state().status(),
            state: loaded.state().view(&principal.viewer())?,
        })
    }

    pub async fn score(
        &self,
        game_id: Uuid,
        principal: &Principal,
        at: Option<u64>,
    ) -> Result<ScoreResponse, ServiceError> {
        let loaded = self.load(game_id, at).await?;
        Ok(ScoreResponse {
            id: game_id,
            game: loaded.record().game.clone(),
            version: loaded.state().version(),
            is_final: loaded.state().status().finished,
            score: loaded.state().score(&principal.viewer())?,
        })
    }

    /// A page of the log after `after`, at most `limit` events.
    pub async fn events(
        &self,
        game_id: Uuid,
        principal: &Principal,
        after: u64,
        limit: u64,
    ) -> Result<EventPage, ServiceError> {
        let loaded = self.load(game_id, None).await?;
        let version = loaded.state().version();
        let start = (after.min(version)) as usize;
        let end = (after.saturating_add(limit)).min(version) as usize;
        let page = &loaded.events()[start..end];
        Ok(EventPage {
            id: game_id,
            game: loaded.record().game.clone(),
            version,
            events: envelopes(loaded.state(), page.iter().map(|e| e.as_ref()), principal)?,
            next_after: ((end as u64) < version).then_some(end as u64),
        })
    }
}

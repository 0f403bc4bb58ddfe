//! What a viewer may read of a game — state, score, events, legal actions,
//! a dry run — at any version, each through the game's redaction for that
//! viewer.

use serde_json::Value;
use umpire_domain::{GameError, Viewer};
use uuid::Uuid;

use crate::access::acting_for;
use crate::error::ServiceError;
use crate::fold::LoadedGame;
use crate::games::GameService;
use crate::model::{
    ActionCheck, ClockOffer, EventPage, GameType, GameTypes, LegalActions, ScoreResponse,
    StateResponse,
};
use crate::replicas::ReadAt;
use crate::shown::envelopes;

/// Page size of the event log.
pub const DEFAULT_EVENT_PAGE: u64 = 100;
pub const MAX_EVENT_PAGE: u64 = 1000;

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
        Ok(GameTypes {
            games,
            clock: ClockOffer {
                settings_schema: "ClockSettings".to_string(),
                min_per_move_ms: umpire_domain::clock::MIN_MOVE_MS,
                max_ms: umpire_domain::clock::MAX_CLOCK_MS,
                example: umpire_domain::clock::ClockSettings {
                    per_move_ms: 60_000,
                    reserve_ms: 300_000,
                    start: umpire_domain::clock::ClockStart::WhenSeated,
                },
            },
        })
    }

    /// Whether `action` would be accepted at version `at` (default: now),
    /// without recording anything. A seat learns only legal or the
    /// violation (see `umpire_domain::dry_run`).
    pub async fn check(
        &self,
        game_id: Uuid,
        viewer: &Viewer<String>,
        action: &Value,
        read: ReadAt,
    ) -> Result<ActionCheck, ServiceError> {
        let actor = acting_for(viewer, "Checking an action")?;
        let loaded = self.load(game_id, read).await?;
        let at = loaded.state().version();
        let decided = umpire_domain::clock::decide(
            loaded.state(),
            loaded.clock(),
            &umpire_domain::actor_label::write(&actor),
            action,
            chrono::Utc::now(),
        );
        let decision = match decided {
            Ok(decision) => Ok(decision.events),
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
        viewer: &Viewer<String>,
        read: ReadAt,
    ) -> Result<LegalActions, ServiceError> {
        let actor = acting_for(viewer, "Listing legal actions")?;
        let loaded = self.load(game_id, read).await?;
        Ok(LegalActions {
            game: loaded.record().game.clone(),
            version: loaded.state().version(),
            actions: loaded.state().legal_actions(&actor)?,
        })
    }

    pub async fn state(
        &self,
        game_id: Uuid,
        viewer: &Viewer<String>,
        read: ReadAt,
    ) -> Result<StateResponse, ServiceError> {
        let loaded = self.load(game_id, read).await?;
        Ok(StateResponse {
            id: game_id,
            game: loaded.record().game.clone(),
            version: loaded.state().version(),
            status: loaded.status(),
            state: loaded.state().view(viewer)?,
        })
    }

    pub async fn score(
        &self,
        game_id: Uuid,
        viewer: &Viewer<String>,
        read: ReadAt,
    ) -> Result<ScoreResponse, ServiceError> {
        let loaded = self.load(game_id, read).await?;
        Ok(ScoreResponse {
            id: game_id,
            game: loaded.record().game.clone(),
            version: loaded.state().version(),
            is_final: loaded.status().finished,
            score: loaded.state().score(viewer)?,
        })
    }

    /// A page of the log after `after`, at most `limit` events. A fold that
    /// holds an event beyond the page answers it from wherever it is found
    /// (`replicas.rs`): the page is then full and `next_after` is set, so a
    /// page read elsewhere never ends the log early; the log's last page
    /// comes from the primary, whose `version` is the newest.
    pub async fn events(
        &self,
        game_id: Uuid,
        viewer: &Viewer<String>,
        after: u64,
        limit: u64,
    ) -> Result<EventPage, ServiceError> {
        let beyond_the_page = after.saturating_add(limit).saturating_add(1);
        let loaded = LoadedGame {
            latest: self
                .fold_for(game_id, ReadAt::AtLeast(beyond_the_page))
                .await?,
            past: None,
        };
        let version = loaded.state().version();
        let start = (after.min(version)) as usize;
        let end = (after.saturating_add(limit)).min(version) as usize;
        let page = &loaded.events()[start..end];
        Ok(EventPage {
            id: game_id,
            game: loaded.record().game.clone(),
            version,
            events: envelopes(loaded.state(), page.iter().map(|e| e.as_ref()), &[], viewer)?,
            next_after: ((end as u64) < version).then_some(end as u64),
        })
    }
}

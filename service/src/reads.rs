//! What a viewer may read of a game — state, score, events, legal actions,
//! a dry run — at any version, each through the game's redaction for that
//! viewer.

use serde_json::Value;
use std::sync::Arc;

use umpire_domain::{actor_label, GameError, Viewer};
use umpire_storage::GameRecord;
use uuid::Uuid;

use crate::access::acting_for;
use crate::attempt::pass_by;
use crate::error::ServiceError;
use crate::fold::{corrupt, LoadedGame};
use crate::folds::Sources;
use crate::games::GameService;
use crate::model::{
    ActionCheck, ClockOffer, EventPage, EventPageJson, GameSummary, GameType, GameTypes,
    LegalActions, ScoreResponse, StateResponse,
};
use crate::projection::{envelopes, page_json, Page};
use crate::replicas::{ReadAt, Skip, Target};
use crate::snapshots::{past_from_snapshot, FromSnapshot};
use umpire_domain::aggregate::GameAggregate;

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
        let decided = loaded.game().decide(
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

    /// A page of the log after `after`, at most `limit` events, as its
    /// JSON, written piece by piece (`projection/events_json.rs`): what
    /// `/events` sends. A fold that holds an event beyond the page answers
    /// it from wherever it is found (`replicas.rs`): the page is then full
    /// and `next_after` is set, so a page read elsewhere never ends the log
    /// early; the log's last page comes from the primary, whose `version`
    /// is the newest.
    pub async fn events_json(
        &self,
        game_id: Uuid,
        viewer: &Viewer<String>,
        after: u64,
        limit: u64,
    ) -> Result<EventPageJson, ServiceError> {
        let (loaded, start, end) = self.page_of(game_id, after, limit).await?;
        let version = loaded.state().version();
        let page = Page {
            game_id,
            game: &loaded.record().game,
            version,
            events: loaded.events().range(start..end).map(|e| e.as_ref()),
            next_after: ((end as u64) < version).then_some(end as u64),
        };
        page_json(page, loaded.state(), viewer)
    }

    /// The same page as [`GameService::events_json`], through the derived
    /// serde types: what the written JSON is held to.
    pub async fn events(
        &self,
        game_id: Uuid,
        viewer: &Viewer<String>,
        after: u64,
        limit: u64,
    ) -> Result<EventPage, ServiceError> {
        let (loaded, start, end) = self.page_of(game_id, after, limit).await?;
        let version = loaded.state().version();
        let page = loaded.events().range(start..end);
        Ok(EventPage {
            id: game_id,
            game: loaded.record().game.clone(),
            version,
            events: envelopes(loaded.state(), page.map(|e| e.as_ref()), &[], viewer)?,
            next_after: ((end as u64) < version).then_some(end as u64),
        })
    }

    /// The game read for a page after `after` of at most `limit` events,
    /// and where the page starts and ends in its events.
    async fn page_of(
        &self,
        game_id: Uuid,
        after: u64,
        limit: u64,
    ) -> Result<(LoadedGame, usize, usize), ServiceError> {
        let beyond_the_page = after.saturating_add(limit).saturating_add(1);
        let loaded = LoadedGame::whole(
            self.fold_for(game_id, ReadAt::AtLeast(beyond_the_page))
                .await?,
            None,
        );
        let version = loaded.state().version();
        let start = (after.min(version)) as usize;
        let end = (after.saturating_add(limit)).min(version) as usize;
        Ok((loaded, start, end))
    }

    /// Reads a game as `read` asks. A version named of a game not in
    /// memory is resumed from the snapshot before it (or the game's start)
    /// with at most `CHECKPOINT_EVERY` events, read where that version is
    /// held first, a standby before the primary, and counted there
    /// (`snapshots.rs`); otherwise the game's events are folded up to the
    /// version asked for, or all it has read (`load_folded`).
    pub async fn load(&self, game_id: Uuid, read: ReadAt) -> Result<LoadedGame, ServiceError> {
        if let ReadAt::At(at) = read {
            if self.folds.cached(game_id).is_none() {
                let record = self.record(game_id).await?;
                if let Some((past, target)) = self.resumed_at(&record, at).await? {
                    self.replicas.served(&self.metrics, target);
                    return Ok(LoadedGame::resumed(record, past));
                }
            }
        }
        self.load_folded(game_id, read).await
    }

    /// The game at `at` resumed from a snapshot, and where it was read;
    /// `None` when it is to be read whole.
    async fn resumed_at(
        &self,
        record: &Arc<GameRecord>,
        at: u64,
    ) -> Result<Option<(GameAggregate, Target)>, ServiceError> {
        let game = self
            .registry
            .get(&record.game)
            .map_err(|e| corrupt(record.game_id, e))?;
        let resume = |store| past_from_snapshot(store, game.as_ref(), record, at, &self.metrics);
        for (index, standby) in self.replicas.to_try() {
            match resume(&standby.store).await {
                Ok(FromSnapshot::Resumed(past)) => return Ok(Some((past, Target::Standby(index)))),
                Ok(FromSnapshot::Whole) => return Ok(None),
                Ok(FromSnapshot::Short) => self.replicas.skipped(index, Skip::Behind),
                Err(error) => pass_by(&self.replicas, index, &standby.name, error),
            }
        }
        Ok(match resume(&self.store).await? {
            FromSnapshot::Resumed(past) => Some((past, Target::Primary)),
            FromSnapshot::Short | FromSnapshot::Whole => None,
        })
    }

    /// Reads a game as `read` asks and folds its events up to the version
    /// asked for, or all it has read: a version named is read wherever it
    /// is found first (`replicas.rs`), the newest from the primary.
    pub(crate) async fn load_folded(
        &self,
        game_id: Uuid,
        read: ReadAt,
    ) -> Result<LoadedGame, ServiceError> {
        let latest = self.fold_for(game_id, read).await?;
        let version = latest.head.version();
        let past = match read {
            ReadAt::At(at) if at < version => Some(latest.at(&self.registry, at)?),
            ReadAt::At(at) | ReadAt::AtLeast(at) if at > version => {
                return Err(ServiceError::invalid(
                    "version_out_of_range",
                    format!("Version {at} does not exist yet; the game is at version {version}."),
                ))
            }
            _ => None,
        };
        Ok(LoadedGame::whole(latest, past))
    }

    /// A fold holding the version `read` names, if the game has it (else
    /// the newest, from the primary), or the newest from the primary.
    pub(crate) async fn fold_for(
        &self,
        game_id: Uuid,
        read: ReadAt,
    ) -> Result<Arc<crate::fold::Fold>, ServiceError> {
        Ok(match read.need() {
            Some(need) => {
                let sources = Sources {
                    store: &self.store,
                    replicas: &self.replicas,
                    registry: &self.registry,
                    metrics: &self.metrics,
                };
                self.folds.at_least(sources, game_id, need).await?
            }
            None => {
                let latest = self.latest(game_id).await?;
                self.replicas.served(&self.metrics, Target::Primary);
                latest
            }
        })
    }

    pub async fn summary(
        &self,
        game_id: Uuid,
        viewer: &Viewer<String>,
        read: ReadAt,
    ) -> Result<GameSummary, ServiceError> {
        let loaded = self.load(game_id, read).await?;
        let game = self
            .registry
            .get(&loaded.record().game)
            .map_err(|e| corrupt(game_id, e))?;
        Ok(GameSummary {
            id: game_id,
            game: loaded.record().game.clone(),
            version: loaded.state().version(),
            rules_version: loaded.record().rules_version,
            seats: game
                .seats(&loaded.record().options)
                .map_err(|e| corrupt(game_id, e))?,
            status: loaded.status(),
            created_at: loaded.record().created_at.to_rfc3339(),
            viewer: viewer.actor().map_or_else(
                || "spectator".to_string(),
                |actor| actor_label::write(&actor),
            ),
        })
    }
}

//! Stored games as archives and back: export (the log whole, the refusals in
//! pages, so that memory does not grow with what was refused), import of one
//! archive (validated by replay, then stored whole with new tokens; many at
//! once are `import.rs`'s), the opening of an audit, and what-if re-runs.

use serde_json::Value;
use tokio::sync::mpsc;
use umpire_archive::format::{FORMAT, FORMAT_VERSION};
use umpire_archive::{
    Archive, AuditOpening, Cause, Divergence, ImportRefusal, InvalidRejection, RejectionFault,
    WhatIfError, WhatIfReport,
};
use umpire_domain::record::RecordedRejection;
use umpire_domain::{RecordedEvent, Registry};
use umpire_storage::{EventStore, GameRecord, GameResult, ImportGame, ImportOutcome, StoreError};
use uuid::Uuid;

use crate::access::{mint_tokens, MintedTokens};
use crate::error::ServiceError;
use crate::games::GameService;
use crate::model::CreatedGame;
use crate::replicas::{Skip, Target};

/// Rejections read from the database at a time by audit and export.
const REJECTIONS_PER_PAGE: usize = 500;

/// A stored game as an archive.
pub fn archive_of(
    record: &GameRecord,
    events: Vec<RecordedEvent>,
    rejections: Vec<RecordedRejection>,
) -> Archive {
    Archive {
        format: FORMAT.to_string(),
        format_version: FORMAT_VERSION,
        game_id: record.game_id,
        game: record.game.clone(),
        options: record.options.clone(),
        // Seeds are stored as the bits of a u64 in a bigint.
        seed: record.seed as u64,
        rules_version: record.rules_version,
        created_at: record.created_at.to_rfc3339(),
        events,
        rejections,
    }
}

/// Reads one stored game whole, as an archive. Its size grows with the
/// rejections: the service pages them instead ([`GameService::rejections`]);
/// this is for the command line.
pub async fn export_game(store: &EventStore, game_id: Uuid) -> Result<Archive, ServiceError> {
    let mut archive = export_game_log(store, game_id).await?;
    archive.rejections = store.rejections(game_id).await?;
    Ok(archive)
}

/// One stored game as an archive without its rejections: bounded by the
/// game's length, whatever was refused in it.
pub async fn export_game_log(store: &EventStore, game_id: Uuid) -> Result<Archive, ServiceError> {
    let stored = store.archive(game_id).await?;
    Ok(archive_of(&stored.record, stored.events, Vec::new()))
}

/// The error for an archive that does not replay: the first failing event
/// and the cause in the code.
pub fn refused(divergence: &Divergence) -> ServiceError {
    let code = divergence.cause.code();
    let message = format!(
        "Event {} (decided at version {}) is refused: {}.",
        divergence.seq, divergence.version, divergence.message
    );
    // Options that are not the game's are bad input wherever they come from
    // (creating a game, an archive, a what-if's patch): one code, one status.
    if divergence.cause == Cause::InvalidOptions {
        return ServiceError::invalid(code, message);
    }
    ServiceError::Unprocessable {
        code,
        message,
        details: Some(match &divergence.violation {
            Some(violation) => serde_json::json!({
                "seq": divergence.seq,
                "version": divergence.version,
                "violation": violation,
            }),
            None => serde_json::json!({
                "seq": divergence.seq,
                "version": divergence.version,
            }),
        }),
    }
}

/// The error for an archive with a rejection the store would not have
/// kept, naming the entry by its index in `rejections`.
pub fn refused_rejection(invalid: &InvalidRejection) -> ServiceError {
    let code = match invalid.fault {
        RejectionFault::UnknownActor => "archive_rejection_unknown_actor",
        RejectionFault::VersionOutOfRange => "archive_rejection_version_out_of_range",
        RejectionFault::NulCharacter => "archive_rejection_nul_character",
        RejectionFault::InvalidTime => "archive_rejection_invalid_time",
        RejectionFault::InvalidText => "archive_rejection_invalid_text",
        RejectionFault::RulesVersionMismatch => "archive_rejection_rules_version_mismatch",
        RejectionFault::InvalidRepeats => "archive_rejection_invalid_repeats",
        RejectionFault::Duplicate => "archive_rejection_duplicate",
        RejectionFault::OverCap => "archive_rejection_over_cap",
        RejectionFault::OverGameCap => "archive_rejection_over_game_cap",
        RejectionFault::TimeInFuture => "archive_rejection_time_in_future",
    };
    ServiceError::Unprocessable {
        code,
        message: format!(
            "Rejection {} is refused: {}.",
            invalid.index, invalid.message
        ),
        details: Some(serde_json::json!({"rejection": invalid.index})),
    }
}

/// An archive that passed every check, with the tokens it will be stored
/// with: what [`store_prepared`] writes. Making one replays the whole game,
/// so it is CPU work, done on any thread.
pub struct PreparedImport {
    archive: Archive,
    record: GameRecord,
    tokens: MintedTokens,
    /// How the game ended, if its log ends it.
    result: Option<GameResult>,
    /// Its states on the way, kept once it is stored (`snapshots.rs`).
    snapshots: Vec<umpire_storage::FoldSnapshot>,
}

/// Validates an archive by replay (format, hash chain, setup, every action
/// re-decided, every rejection checked) and mints its tokens. Stores nothing.
pub fn prepare_import(
    registry: &Registry,
    archive: Archive,
) -> Result<PreparedImport, ServiceError> {
    archive.check_format().map_err(|e| {
        ServiceError::unprocessable(
            "unsupported_archive",
            format!("The archive is refused: {e}."),
        )
    })?;
    crate::log_length::check_archive(archive.events.len())?;
    let policy = umpire_archive::RejectionPolicy {
        kept_per_version: umpire_storage::REFUSALS_KEPT_PER_VERSION,
        kept_per_game: umpire_storage::REFUSALS_KEPT_PER_GAME,
        not_kept_code: umpire_storage::REFUSALS_NOT_KEPT_CODE,
    };
    // The archive crate reads no clock: the times an archive may hold are
    // judged against this server's.
    let now = chrono::Utc::now();
    let mut snapshots = crate::snapshots::ImportSnapshots::default();
    let replayed =
        umpire_archive::validate_for_import_observing(registry, &archive, &policy, now, |step| {
            snapshots.observe(step)
        })
        .map_err(|refusal| match refusal {
            ImportRefusal::Log(divergence) => refused(&divergence),
            ImportRefusal::Rejection(invalid) => refused_rejection(&invalid),
        })?;
    let result = crate::listing::result_of(replayed.game.state.as_ref());
    let game = registry.get(&archive.game)?;
    let created_at = chrono::DateTime::parse_from_rfc3339(&archive.created_at)
        .map_err(|e| {
            ServiceError::invalid(
                "invalid_archive",
                format!("created_at `{}` is not RFC 3339: {e}.", archive.created_at),
            )
        })?
        .with_timezone(&chrono::Utc);
    let tokens = mint_tokens(game.seats(&archive.options)?)?;
    let record = GameRecord {
        game_id: archive.game_id,
        game: archive.game.clone(),
        options: archive.options.clone(),
        seed: archive.seed as i64,
        rules_version: archive.rules_version,
        created_at,
    };
    Ok(PreparedImport {
        archive,
        record,
        tokens,
        result,
        snapshots: snapshots.rows(),
    })
}

/// Stores prepared games together, in one transaction: each game's answer
/// (its new tokens, or `game_already_exists`), in order. An error means
/// none of them was stored.
pub async fn store_prepared(
    store: &EventStore,
    prepared: &[PreparedImport],
) -> Result<Vec<Result<CreatedGame, ServiceError>>, ServiceError> {
    let games: Vec<ImportGame<'_>> = prepared
        .iter()
        .map(|game| ImportGame {
            record: game.record.clone(),
            events: &game.archive.events,
            rejections: &game.archive.rejections,
            tokens: game.tokens.stored.clone(),
            result: game.result.clone(),
        })
        .collect();
    let outcomes = store.import_games(&games).await?;
    Ok(prepared
        .iter()
        .zip(outcomes)
        .map(|(game, outcome)| match outcome {
            ImportOutcome::Imported => Ok(CreatedGame {
                id: game.archive.game_id,
                version: game.archive.version(),
                game: game.archive.game.clone(),
                umpire_token: game.tokens.umpire.clone(),
                seat_tokens: game.tokens.seats.clone(),
                // An imported game's seats have their tokens; a reissue
                // makes an invitation for one.
                invitations: Default::default(),
            }),
            ImportOutcome::AlreadyExists => Err(ServiceError::AlreadyExists {
                code: "game_already_exists",
                message: format!(
                    "Game {} is already stored; an archive keeps its id, since its hashes cover it.",
                    game.archive.game_id
                ),
            }),
        })
        .collect())
}

impl PreparedImport {
    /// How many events it will store.
    pub fn events(&self) -> usize {
        self.archive.events.len()
    }

    /// Keeps its snapshots: once it is stored, never before (a row of
    /// `fold_snapshots` names a stored game).
    pub(crate) async fn keep_snapshots(&self, store: &EventStore) {
        crate::snapshots::keep_imported(
            store,
            self.record.game_id,
            &self.record.game,
            &self.snapshots,
        )
        .await;
    }
}

/// Validates an archive by replay and stores it whole with new tokens.
/// Nothing is stored unless every check passes.
pub async fn import_archive(
    store: &EventStore,
    registry: &Registry,
    archive: Archive,
) -> Result<CreatedGame, ServiceError> {
    store_one(store, prepare_import(registry, archive)?).await
}

/// Stores one prepared game: its new tokens, or why not.
async fn store_one(
    store: &EventStore,
    prepared: PreparedImport,
) -> Result<CreatedGame, ServiceError> {
    let created = store_prepared(store, std::slice::from_ref(&prepared))
        .await?
        .pop()
        .unwrap_or_else(|| Err(ServiceError::Internal("an import answered nothing".into())))?;
    prepared.keep_snapshots(store).await;
    Ok(created)
}

/// Runs a blocking job (a replay) off the async threads.
async fn blocking<T: Send + 'static>(
    what: &str,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ServiceError> {
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| ServiceError::Internal(format!("{what} task failed: {e}")))
}

impl GameService {
    /// The game's log as an archive without its rejections: a finished
    /// game's from a standby that holds its end (`replicas.rs`), any other
    /// from the primary.
    pub async fn export_log(&self, game_id: Uuid) -> Result<Archive, ServiceError> {
        for (index, standby) in self.replicas.to_try() {
            match standby.store.finished_archive(game_id).await {
                Ok(Some(stored)) => {
                    self.replicas.served(&self.metrics, Target::Standby(index));
                    return Ok(archive_of(&stored.record, stored.events, Vec::new()));
                }
                Ok(None) | Err(StoreError::GameNotFound(_)) => {
                    self.replicas.skipped(index, Skip::Behind)
                }
                Err(StoreError::Unavailable(_)) => self.replicas.skipped(index, Skip::Down),
                Err(error) => {
                    tracing::warn!(standby = %standby.name, %error, "a standby's archive could not be read; reading from the primary");
                    self.replicas.skipped(index, Skip::Failed)
                }
            }
        }
        self.replicas.served(&self.metrics, Target::Primary);
        export_game_log(&self.store, game_id).await
    }

    /// Validates an archive by replay and stores it (see [`import_archive`]).
    /// The validation runs off the async threads: for the largest archives
    /// it is seconds of work, during which a worker would answer none of its
    /// other connections, and actix's clock, by which it times their
    /// keep-alive, would stand still (a connection answered after such a
    /// stall was closed at once, without `Connection: close`).
    pub async fn import(&self, archive: Archive) -> Result<CreatedGame, ServiceError> {
        let registry = self.registry.clone();
        let prepared = blocking("import", move || prepare_import(&registry, archive)).await??;
        store_one(&self.store, prepared).await
    }

    /// What an audit of a stored game needs before its first entry: the log
    /// and the report's opening fields. The log is replayed first, so what
    /// would stop the audit midway is an error now rather than a cut answer.
    pub async fn audit_opening(
        &self,
        game_id: Uuid,
    ) -> Result<(Archive, AuditOpening), ServiceError> {
        let log = self.export_log(game_id).await?;
        let registry = self.registry.clone();
        blocking("audit", move || {
            umpire_archive::replay(&registry, &log, |_| {})?;
            let opening = umpire_archive::audit_opening(&registry, &log)?;
            Ok((log, opening))
        })
        .await?
        .map_err(|divergence: Divergence| {
            ServiceError::Internal(format!(
                "stored game {game_id} cannot be audited: {divergence}"
            ))
        })
    }

    /// The stored game re-run under other options: where its outcome changes.
    pub async fn what_if(
        &self,
        game_id: Uuid,
        options_patch: Value,
    ) -> Result<WhatIfReport, ServiceError> {
        // A what-if re-runs the log; the rejections play no part.
        let archive = self.export_log(game_id).await?;
        let registry = self.registry.clone();
        blocking("what-if", move || {
            umpire_archive::what_if(&registry, &archive, &options_patch)
        })
        .await?
        .map_err(|error| match error {
            WhatIfError::Invalid(divergence) => refused(&divergence),
            WhatIfError::Options(error) => ServiceError::from(error),
        })
    }

    /// A game's rejections in audit order, read page by page by a task and
    /// handed to a blocking reader through a channel of one page: at most
    /// three pages are held at once. The first page is read before this
    /// returns, so an unreachable database is still an error here.
    pub async fn rejections(&self, game_id: Uuid) -> Result<PagedRejections, ServiceError> {
        let store = self.store.clone();
        let first = store
            .rejections_page(game_id, None, REJECTIONS_PER_PAGE)
            .await?;
        let (pages, receiver) = mpsc::channel(1);
        tokio::spawn(async move {
            let mut page = first;
            loop {
                let next = page.next.take();
                if pages.send(Ok(page.rejections)).await.is_err() {
                    return;
                }
                let Some(after) = next else { return };
                page = match store
                    .rejections_page(game_id, Some(&after), REJECTIONS_PER_PAGE)
                    .await
                {
                    Ok(page) => page,
                    Err(error) => {
                        let _ = pages.send(Err(error)).await;
                        return;
                    }
                };
            }
        });
        Ok(PagedRejections {
            pages: receiver,
            page: Vec::new().into_iter(),
        })
    }
}

/// The rejections [`GameService::rejections`] reads, for a blocking thread
/// (it waits for each page).
pub struct PagedRejections {
    pages: mpsc::Receiver<Result<Vec<RecordedRejection>, StoreError>>,
    page: std::vec::IntoIter<RecordedRejection>,
}

impl Iterator for PagedRejections {
    type Item = Result<RecordedRejection, StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(rejection) = self.page.next() {
                return Some(Ok(rejection));
            }
            match self.pages.blocking_recv()? {
                Ok(page) => self.page = page.into_iter(),
                Err(error) => return Some(Err(error)),
            }
        }
    }
}

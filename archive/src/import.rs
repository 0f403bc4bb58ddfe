//! What an archive must satisfy before it is stored: its log replays (see
//! `replay`), every string can be stored as it is (PostgreSQL refuses U+0000
//! in text and jsonb), and its refused actions are ones this service could
//! have recorded — a real actor of the game, a version within the log, a
//! bounded size, and no more of them than the store keeps (`RejectionPolicy`).
//! Its times must be ones a clock could have written: the log's never run
//! backwards, and no time is later than the importer's clock (given by the
//! caller, so this crate reads none) by more than [`MAX_CLOCK_SKEW`].
//! An archive is checked whole, before anything is written.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;
use serde_json::Value;
use umpire_domain::Registry;

use umpire_domain::actor_label;
use umpire_domain::record::{format_recorded_at, is_canonical_recorded_at};
use umpire_domain::Actor;

use umpire_domain::record::RecordedRejection;

use crate::format::Archive;
use crate::replay::{replay, Cause, Divergence, Replayed};

/// Longest rejection `code` or `rule` accepted: every code and rule book
/// reference the games use is well under this.
pub const MAX_REJECTION_CODE_BYTES: usize = 200;
/// Longest rejection `message`, and longest action once serialised: the
/// service's request body limit, which no recorded refusal can exceed.
pub const MAX_REJECTION_TEXT_BYTES: usize = 64 * 1024;

/// How far past the importer's clock a recorded time may be: clocks of
/// the machines that recorded a game and of the one importing it disagree a
/// little, but a game is not played in the future.
pub const MAX_CLOCK_SKEW: TimeDelta = TimeDelta::minutes(5);

/// How the store keeps refusals, which imported ones must respect: no two
/// entries for one refusal (they are one entry with a count), at most
/// `kept_per_version` distinct ones per (actor, version), plus one entry with
/// code `not_kept_code` and a null action counting the rest, and at most
/// `kept_per_game` entries of any kind in one game (which bounds its audit).
#[derive(Debug, Clone, Copy)]
pub struct RejectionPolicy {
    pub kept_per_version: u64,
    pub kept_per_game: u64,
    pub not_kept_code: &'static str,
}

/// What is wrong with an imported rejection. Stable snake_case codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RejectionFault {
    /// The actor is neither `umpire` nor `seat:<a seat of this game>`.
    UnknownActor,
    /// `at_version` is 0 or beyond the archive's last event.
    VersionOutOfRange,
    /// A string (or a string inside the action) holds U+0000.
    NulCharacter,
    /// `recorded_at` is not an RFC 3339 time.
    InvalidTime,
    /// `code` is empty, or `code`, `rule`, `message` or the action is too long.
    InvalidText,
    /// `rules_version` is not the game's.
    RulesVersionMismatch,
    /// `repeats` is 0 or beyond what the store can count.
    InvalidRepeats,
    /// The same refusal (actor, version, code, action) appears twice.
    Duplicate,
    /// More distinct refusals for one (actor, version) than the store keeps.
    OverCap,
    /// More entries in the game than the store keeps for one game.
    OverGameCap,
    /// `recorded_at` is later than the importer's clock allows.
    TimeInFuture,
}

/// The first rejection an import refuses, by its index in `rejections`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InvalidRejection {
    pub index: usize,
    pub fault: RejectionFault,
    /// One sentence saying what is wrong.
    pub message: String,
}

/// Why an archive is not imported: its log, or one of its rejections.
#[derive(Debug, Clone, PartialEq)]
pub enum ImportRefusal {
    Log(Divergence),
    Rejection(InvalidRejection),
}

impl From<Divergence> for ImportRefusal {
    fn from(divergence: Divergence) -> Self {
        ImportRefusal::Log(divergence)
    }
}

/// Validates an archive for import: a real game id, replay, what the store
/// needs to keep the stored hashes valid (canonical timestamps, a non-empty
/// log), times a clock could have written (non-decreasing along the log, none
/// past `now` by more than [`MAX_CLOCK_SKEW`]), strings it can store, and
/// every rejection (see [`RejectionFault`]).
pub fn validate_for_import(
    registry: &Registry,
    archive: &Archive,
    policy: &RejectionPolicy,
    now: DateTime<Utc>,
) -> Result<Replayed, ImportRefusal> {
    validate_for_import_observing(registry, archive, policy, now, |_| {})
}

/// [`validate_for_import`], shown each step of the replay as [`replay`]
/// shows it: what an importer keeps of the states on the way (the
/// service's snapshots of a fold).
pub fn validate_for_import_observing(
    registry: &Registry,
    archive: &Archive,
    policy: &RejectionPolicy,
    now: DateTime<Utc>,
    observe: impl FnMut(&crate::replay::Step<'_>),
) -> Result<Replayed, ImportRefusal> {
    if archive.game_id.is_nil() {
        return Err(Divergence::new(
            0,
            0,
            Cause::NilGameId,
            "the game id is the nil UUID, which no game has",
        )
        .into());
    }
    // Creation draws seeds in this range and the store keeps them as
    // BIGINT: a larger one would be stored as another seed.
    if !umpire_domain::rng::is_valid_seed(archive.seed) {
        return Err(Divergence::new(
            0,
            0,
            Cause::SeedOutOfRange,
            format!(
                "the seed {} is past {}, the largest a game is created with",
                archive.seed,
                umpire_domain::rng::MAX_SEED
            ),
        )
        .into());
    }
    let replayed = replay(registry, archive, observe)?;
    if let Some(first) = replayed.first_failure() {
        return Err(first.clone().into());
    }
    if archive.events.is_empty() {
        return Err(Divergence::new(
            1,
            0,
            Cause::MissingEvent,
            "the archive has no events: every game starts with its setup",
        )
        .into());
    }
    if holds_nul(&archive.options) {
        return Err(Divergence::new(
            0,
            0,
            Cause::UnstorableText,
            "the options hold a U+0000 character, which cannot be stored",
        )
        .into());
    }
    let latest_allowed = now + MAX_CLOCK_SKEW;
    let mut previous_time: Option<DateTime<Utc>> = None;
    for event in &archive.events {
        if !is_canonical_recorded_at(&event.recorded_at) {
            return Err(Divergence::new(
                event.seq,
                event.decided_at,
                Cause::HashMismatch,
                format!(
                    "recorded_at `{}` is not in the stored form (UTC, six fractional digits, Z), so its hash could not be kept",
                    event.recorded_at.escape_debug()
                ),
            )
            .into());
        }
        let recorded_at = parse_time(&event.recorded_at).ok_or_else(|| {
            Divergence::new(
                event.seq,
                event.decided_at,
                Cause::HashMismatch,
                format!(
                    "recorded_at `{}` is not a time",
                    event.recorded_at.escape_debug()
                ),
            )
        })?;
        if previous_time.is_some_and(|previous| recorded_at < previous) {
            return Err(Divergence::new(
                event.seq,
                event.decided_at,
                Cause::TimeRunsBackwards,
                format!(
                    "recorded_at {} is earlier than the event before it: a log is recorded in order",
                    event.recorded_at
                ),
            )
            .into());
        }
        if recorded_at > latest_allowed {
            return Err(Divergence::new(
                event.seq,
                event.decided_at,
                Cause::TimeInFuture,
                format!(
                    "recorded_at {} is more than {} minutes after this server's clock ({})",
                    event.recorded_at,
                    MAX_CLOCK_SKEW.num_minutes(),
                    format_recorded_at(&now)
                ),
            )
            .into());
        }
        previous_time = Some(recorded_at);
        let texts = [
            &event.event_type,
            &event.actor,
            &event.prev_hash,
            &event.hash,
        ];
        if texts.iter().any(|text| text.contains('\0'))
            || holds_nul(&event.payload)
            || holds_nul(&event.action)
        {
            return Err(Divergence::new(
                event.seq,
                event.decided_at,
                Cause::UnstorableText,
                "the event holds a U+0000 character, which cannot be stored",
            )
            .into());
        }
    }
    let seats = registry
        .get(&archive.game)
        .and_then(|game| game.seats(&archive.options))
        .map_err(|error| Divergence::new(0, 0, Cause::InvalidOptions, error.to_string()))?;
    validate_rejections(archive, &seats, policy, latest_allowed)
        .map_err(ImportRefusal::Rejection)?;
    Ok(replayed)
}

/// An RFC 3339 time, in UTC.
fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|time| time.with_timezone(&Utc))
}

fn validate_rejections(
    archive: &Archive,
    seats: &[String],
    policy: &RejectionPolicy,
    latest_allowed: DateTime<Utc>,
) -> Result<(), InvalidRejection> {
    let mut seen = HashSet::new();
    let mut kept_per_version: HashMap<(&str, u64), u64> = HashMap::new();
    for (index, rejection) in archive.rejections.iter().enumerate() {
        let refuse = |fault, message: String| InvalidRejection {
            index,
            fault,
            message,
        };
        // An audit writes every entry with the state before it as each
        // viewer saw it, so the entries a game may hold are what bounds the
        // size and time of its audit.
        if index as u64 == policy.kept_per_game {
            return Err(refuse(
                RejectionFault::OverGameCap,
                format!(
                    "a game keeps at most {} rejections: further refusals are only counted",
                    policy.kept_per_game
                ),
            ));
        }
        check_one(archive, seats, policy, rejection, latest_allowed)
            .map_err(|(fault, why)| refuse(fault, why))?;
        let action_text = rejection.action.to_string();
        if !seen.insert((
            rejection.actor.as_str(),
            rejection.at_version,
            rejection.code.as_str(),
            action_text,
        )) {
            return Err(refuse(
                RejectionFault::Duplicate,
                "the same refusal appears earlier: repeated refusals are one entry with `repeats`"
                    .to_string(),
            ));
        }
        if rejection.code != policy.not_kept_code {
            let kept = kept_per_version
                .entry((rejection.actor.as_str(), rejection.at_version))
                .or_default();
            *kept += 1;
            if *kept > policy.kept_per_version {
                return Err(refuse(
                    RejectionFault::OverCap,
                    format!(
                        "more than {} distinct refusals for {} at version {}: further ones are only counted",
                        policy.kept_per_version, rejection.actor, rejection.at_version
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn check_one(
    archive: &Archive,
    seats: &[String],
    policy: &RejectionPolicy,
    rejection: &RecordedRejection,
    latest_allowed: DateTime<Utc>,
) -> Result<(), (RejectionFault, String)> {
    let texts = [
        Some(&rejection.actor),
        Some(&rejection.code),
        Some(&rejection.message),
        rejection.rule.as_ref(),
        Some(&rejection.recorded_at),
    ];
    if texts.iter().flatten().any(|text| text.contains('\0')) || holds_nul(&rejection.action) {
        return Err((
            RejectionFault::NulCharacter,
            "it holds a U+0000 character, which cannot be stored".to_string(),
        ));
    }
    let is_actor = match actor_label::read(&rejection.actor) {
        Some(Actor::Umpire) => true,
        Some(Actor::Seat(seat)) => seats.contains(&seat),
        None => false,
    };
    if !is_actor {
        return Err((
            RejectionFault::UnknownActor,
            format!(
                "`{}` is not `umpire` or `seat:` and a seat of this game ({})",
                rejection.actor.escape_debug(),
                seats.join(", ")
            ),
        ));
    }
    if rejection.at_version == 0 || rejection.at_version > archive.version() {
        return Err((
            RejectionFault::VersionOutOfRange,
            format!(
                "at_version {} is not within the log (1 to {})",
                rejection.at_version,
                archive.version()
            ),
        ));
    }
    let Some(recorded_at) = parse_time(&rejection.recorded_at) else {
        return Err((
            RejectionFault::InvalidTime,
            format!(
                "recorded_at `{}` is not an RFC 3339 time",
                rejection.recorded_at.escape_debug()
            ),
        ));
    };
    // Refusals are not part of the log and are kept in audit order, not
    // time order, so their times need not run forwards; but none was made
    // in the future.
    if recorded_at > latest_allowed {
        return Err((
            RejectionFault::TimeInFuture,
            format!(
                "recorded_at {} is more than {} minutes after this server's clock",
                rejection.recorded_at.escape_debug(),
                MAX_CLOCK_SKEW.num_minutes()
            ),
        ));
    }
    let code_ok = !rejection.code.is_empty() && rejection.code.len() <= MAX_REJECTION_CODE_BYTES;
    let rule_ok = rejection
        .rule
        .as_ref()
        .is_none_or(|rule| rule.len() <= MAX_REJECTION_CODE_BYTES);
    let message_ok = rejection.message.len() <= MAX_REJECTION_TEXT_BYTES;
    let action_ok = rejection.action.to_string().len() <= MAX_REJECTION_TEXT_BYTES;
    if !(code_ok && rule_ok && message_ok && action_ok) {
        return Err((
            RejectionFault::InvalidText,
            format!(
                "the code must be 1 to {MAX_REJECTION_CODE_BYTES} bytes, the rule at most \
                 {MAX_REJECTION_CODE_BYTES}, the message and the action at most \
                 {MAX_REJECTION_TEXT_BYTES}"
            ),
        ));
    }
    if rejection.code == policy.not_kept_code && !rejection.action.is_null() {
        return Err((
            RejectionFault::InvalidText,
            format!(
                "a `{}` entry counts refusals that were not kept and has no action",
                policy.not_kept_code
            ),
        ));
    }
    if rejection.rules_version != archive.rules_version {
        return Err((
            RejectionFault::RulesVersionMismatch,
            format!(
                "rules_version {} is not the game's ({})",
                rejection.rules_version, archive.rules_version
            ),
        ));
    }
    if rejection.repeats == 0 || i64::try_from(rejection.repeats).is_err() {
        return Err((
            RejectionFault::InvalidRepeats,
            format!(
                "repeats {} is not between 1 and {}",
                rejection.repeats,
                i64::MAX
            ),
        ));
    }
    Ok(())
}

/// `value` with every U+0000 in its strings and keys made U+FFFD, which
/// PostgreSQL's jsonb can store (see [`holds_nul`]).
pub fn without_nul(value: &Value) -> Value {
    fn clean(text: &str) -> String {
        text.replace('\0', "\u{FFFD}")
    }
    match value {
        Value::String(text) if text.contains('\0') => Value::String(clean(text)),
        Value::Array(items) => Value::Array(items.iter().map(without_nul).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (clean(key), without_nul(item)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// True when a JSON value holds U+0000 in any string or key, which
/// PostgreSQL's jsonb cannot store.
pub fn holds_nul(value: &Value) -> bool {
    match value {
        Value::String(text) => text.contains('\0'),
        Value::Array(items) => items.iter().any(holds_nul),
        Value::Object(map) => map
            .iter()
            .any(|(key, item)| key.contains('\0') || holds_nul(item)),
        _ => false,
    }
}

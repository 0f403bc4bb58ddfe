//! Replay validation: the hash chain checked end to end, the setup re-drawn
//! from the seed, and every stored action re-decided against the state before
//! it with today's rules and compared with what was recorded.
//!
//! Events are grouped by the action that caused them: consecutive events that
//! share `decided_at`, `actor` and `action` are one decision. Only events the
//! rules themselves produce are ever folded (the recorded ones are compared,
//! not applied), so a tampered log can never make `apply` see an event
//! `decide` would not have produced.

use serde::Serialize;
use serde_json::Value;
use umpire_domain::aggregate::GameAggregate;
use umpire_domain::clock::{self, ClockSettings};
use umpire_domain::record::{self, ChainFault};
use umpire_domain::{actor_label, Violation};
use umpire_domain::{DynGame, GameError, RecordedEvent, Registry};

use crate::format::Archive;

/// What kind of failure a divergence is. Stable snake_case codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// The registry has no game of that id.
    UnknownGame,
    /// The options are not what `validate_options` makes of them.
    InvalidOptions,
    /// Sequence numbers do not run 1, 2, 3, … without gaps.
    SequenceGap,
    /// `prev_hash` is not the previous event's hash.
    ChainBroken,
    /// The hash is not the hash of the event's contents.
    HashMismatch,
    /// `event_type` is not the payload's `type`.
    EventTypeMismatch,
    /// The setup events are not the deal the seed and options produce.
    SetupMismatch,
    /// An event that no recorded action (or the setup) produces.
    UnexplainedEvent,
    /// The rules produce an event for this action that was not recorded.
    MissingEvent,
    /// The rules produce a different event for this action.
    EventDiffers,
    /// Today's rules refuse an action the log says was accepted.
    ActionRefused,
    /// The recorded actor or action cannot be read.
    MalformedAction,
    /// A string holds U+0000, which the store cannot keep.
    UnstorableText,
    /// The game id is the nil UUID, which no game is created with.
    NilGameId,
    /// The seed is past `umpire_domain::rng::MAX_SEED`.
    SeedOutOfRange,
    /// An event's `recorded_at` is earlier than the event before it.
    TimeRunsBackwards,
    /// An event's `recorded_at` is later than the importing clock allows.
    TimeInFuture,
    /// A clock timeout the log does not bear out: recorded before the
    /// seat's deadline, for a seat that was not due (or while the clock was
    /// paused), or naming a deadline the log does not give.
    UntimelyTimeout,
}

impl Cause {
    /// The error code an archive that fails for this cause is answered
    /// with: the refusal of an import, and the error row of a bulk score
    /// (`service/src/codes.rs` lists and explains each).
    pub fn code(self) -> &'static str {
        match self {
            Cause::UnknownGame => "unknown_game",
            Cause::InvalidOptions => "invalid_options",
            Cause::SequenceGap => "archive_sequence_gap",
            Cause::ChainBroken => "archive_chain_broken",
            Cause::HashMismatch => "archive_hash_mismatch",
            Cause::EventTypeMismatch => "archive_event_type_mismatch",
            Cause::SetupMismatch => "archive_setup_mismatch",
            Cause::UnexplainedEvent => "archive_unexplained_event",
            Cause::MissingEvent => "archive_missing_event",
            Cause::EventDiffers => "archive_event_differs",
            Cause::ActionRefused => "archive_action_refused",
            Cause::MalformedAction => "archive_malformed_action",
            Cause::UnstorableText => "archive_nul_character",
            Cause::NilGameId => "archive_nil_game_id",
            Cause::SeedOutOfRange => "archive_seed_out_of_range",
            Cause::TimeRunsBackwards => "archive_time_runs_backwards",
            Cause::TimeInFuture => "archive_time_in_future",
            Cause::UntimelyTimeout => "archive_untimely_timeout",
        }
    }
}

/// The first place where a log stops being what its actions explain.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Divergence {
    /// The sequence number of the first failing event (0: the game itself,
    /// before any event, e.g. unknown game or invalid options).
    pub seq: u64,
    /// The version the failing decision was taken against.
    pub version: u64,
    pub cause: Cause,
    /// One sentence saying what is wrong.
    pub message: String,
    /// What today's rules produce, where that is an event.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = umpire_domain::schema_names::any_event)]
    pub expected: Option<Box<Value>>,
    /// What the log records.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = umpire_domain::schema_names::any_event)]
    pub recorded: Option<Box<Value>>,
    /// Where today's rules refuse the recorded action: the code they
    /// refuse it with, the one a request for it is answered with
    /// (`seats.unknown_seat`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "seats.unknown_seat")]
    pub violation: Option<String>,
}

impl Divergence {
    pub(crate) fn new(seq: u64, version: u64, cause: Cause, message: impl Into<String>) -> Self {
        Divergence {
            seq,
            version,
            cause,
            message: message.into(),
            expected: None,
            recorded: None,
            violation: None,
        }
    }
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "event {} (version {}): {:?}: {}",
            self.seq, self.version, self.cause, self.message
        )
    }
}

/// A run of consecutive events caused by one decision.
#[derive(Debug, Clone, Copy)]
pub struct Group<'a> {
    /// The version the decision was taken against, as recorded.
    pub decided_at: u64,
    pub actor: &'a str,
    pub action: &'a Value,
    pub events: &'a [RecordedEvent],
}

impl Group<'_> {
    pub fn first_seq(&self) -> u64 {
        self.events.first().map(|e| e.seq).unwrap_or(0)
    }
    pub fn is_setup(&self) -> bool {
        self.decided_at == 0 && self.actor == "system" && self.action.is_null()
    }
}

/// Splits a log into decisions: consecutive events sharing `decided_at`,
/// `actor` and `action`.
pub fn groups(events: &[RecordedEvent]) -> Vec<Group<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for index in 1..=events.len() {
        let boundary = index == events.len() || {
            let (a, b) = (&events[index - 1], &events[index]);
            a.decided_at != b.decided_at || a.actor != b.actor || a.action != b.action
        };
        if boundary {
            let first = &events[start];
            out.push(Group {
                decided_at: first.decided_at,
                actor: &first.actor,
                action: &first.action,
                events: &events[start..index],
            });
            start = index;
        }
    }
    out
}

/// Verifies the hash chain from the first event; the first break, if any.
pub fn verify_chain(archive: &Archive) -> Option<Divergence> {
    let broken = record::verify_chain(&archive.game_id.to_string(), &archive.events).err()?;
    let cause = match broken.fault {
        ChainFault::SequenceGap => Cause::SequenceGap,
        ChainFault::BrokenLink => Cause::ChainBroken,
        ChainFault::HashMismatch => Cause::HashMismatch,
    };
    Some(Divergence::new(
        broken.seq,
        broken.decided_at,
        cause,
        broken.reason,
    ))
}

/// One decision as the replay saw it, handed to an observer before it is
/// folded: the state before, what the log says, and what today's rules say.
pub struct Step<'a> {
    pub group: Group<'a>,
    /// The game (its match and its clock) the decision was taken against.
    pub before: &'a GameAggregate,
    /// Today's verdict (setup: the re-drawn setup events).
    pub verdict: &'a Result<Vec<Value>, GameError>,
    /// Set when this step is where the log diverges.
    pub divergence: Option<&'a Divergence>,
}

/// The outcome of a replay.
pub struct Replayed {
    /// Folded from the recorded events, each compared with the one the rules
    /// produce before it is applied, up to the last decision that matched
    /// the log.
    pub game: GameAggregate,
    /// The first break of the hash chain.
    pub chain_break: Option<Divergence>,
    /// The first decision the rules do not reproduce.
    pub divergence: Option<Divergence>,
}

impl Replayed {
    /// The earliest failure of either kind.
    pub fn first_failure(&self) -> Option<&Divergence> {
        match (&self.chain_break, &self.divergence) {
            (Some(a), Some(b)) => Some(if b.seq < a.seq { b } else { a }),
            (a, b) => a.as_ref().or(b.as_ref()),
        }
    }
    pub fn is_valid(&self) -> bool {
        self.first_failure().is_none()
    }
}

/// The game and its options, checked; a failure here is at seq 0.
pub fn game_of<'r>(
    registry: &'r Registry,
    archive: &Archive,
) -> Result<&'r std::sync::Arc<dyn DynGame>, Divergence> {
    let game = registry
        .get(&archive.game)
        .map_err(|e| Divergence::new(0, 0, Cause::UnknownGame, e.to_string()))?;
    let validated = game.validate_options(&archive.options).map_err(|e| {
        Divergence::new(
            0,
            0,
            Cause::InvalidOptions,
            format!("the options are refused: {e}"),
        )
    })?;
    if validated != archive.options {
        let mut divergence = Divergence::new(
            0,
            0,
            Cause::InvalidOptions,
            "the options are not stored as validated (every default filled in)",
        );
        divergence.expected = Some(Box::new(validated));
        divergence.recorded = Some(Box::new(archive.options.clone()));
        return Err(divergence);
    }
    Ok(game)
}

/// Replays a whole archive: the chain, the setup, every decision. Calls
/// `observe` for each decision, before it is folded.
pub fn replay(
    registry: &Registry,
    archive: &Archive,
    mut observe: impl FnMut(&Step<'_>),
) -> Result<Replayed, Divergence> {
    let game = game_of(registry, archive)?;
    let chain_break = verify_chain(archive);
    let mut played = GameAggregate::start(
        game.new_match(&archive.options)
            .map_err(|e| Divergence::new(0, 0, Cause::InvalidOptions, e.to_string()))?,
    );
    let all_groups = groups(&archive.events);
    let mut divergence = None;
    for (index, group) in all_groups.iter().enumerate() {
        let version = played.version();
        let (verdict, found) = if index == 0 && group.is_setup() {
            let verdict = setup_with_clock(game.as_ref(), archive, group);
            let found = check_setup(group, &verdict);
            (verdict, found)
        } else {
            let found = check_group_shape(group, version);
            match found {
                Some(found) => (Ok(Vec::new()), Some(found)),
                None => {
                    let verdict = group_time(group).and_then(|now| {
                        played
                            .decide_recorded(group.actor, group.action, now)
                            .map(|decision| decision.events)
                    });
                    let found = compare(group, version, &verdict);
                    (verdict, found)
                }
            }
        };
        observe(&Step {
            group: *group,
            before: &played,
            verdict: &verdict,
            divergence: found.as_ref(),
        });
        if let Some(found) = found {
            divergence = Some(found);
            break;
        }
        let produced = verdict.as_ref().expect("a matching verdict is Ok");
        // The recorded events are the produced ones (compared above), with
        // the times the clock reads.
        debug_assert_eq!(produced.len(), group.events.len());
        for recorded in group.events {
            played.apply(recorded).map_err(|e: GameError| {
                Divergence::new(
                    recorded.seq,
                    version,
                    Cause::MalformedAction,
                    format!("the rules produced an event they cannot fold: {e}"),
                )
            })?;
        }
    }
    Ok(Replayed {
        game: played,
        chain_break,
        divergence,
    })
}

/// Checks everything about a decision that needs no rules.
fn check_group_shape(group: &Group<'_>, version: u64) -> Option<Divergence> {
    let first = &group.events[0];
    for event in group.events {
        if event.event_type != umpire_domain::erased::event_type(&event.payload) {
            let mut found = Divergence::new(
                event.seq,
                version,
                Cause::EventTypeMismatch,
                format!(
                    "event_type `{}` is not the payload's type `{}`",
                    event.event_type,
                    umpire_domain::erased::event_type(&event.payload)
                ),
            );
            found.recorded = Some(Box::new(event.payload.clone()));
            return Some(found);
        }
    }
    if group.decided_at != version {
        return Some(Divergence::new(
            first.seq,
            version,
            Cause::UnexplainedEvent,
            format!(
                "recorded as decided at version {}, but the game was at version {version}: no action at this point produces it",
                group.decided_at
            ),
        ));
    }
    if group.actor == "system" || group.action.is_null() {
        return Some(Divergence::new(
            first.seq,
            version,
            Cause::UnexplainedEvent,
            "an event without an action outside the setup: no action explains it",
        ));
    }
    if group.actor != actor_label::CLOCK && actor_label::read(group.actor).is_none() {
        return Some(Divergence::new(
            first.seq,
            version,
            Cause::MalformedAction,
            format!("`{}` is not an actor (umpire or seat:<name>)", group.actor),
        ));
    }
    None
}

/// The setup the seed and options draw, followed by the clock's settings
/// when the recorded setup ends with valid ones (a game created with a
/// clock); anything else after the deal is left for the comparison to find.
fn setup_with_clock(
    game: &dyn DynGame,
    archive: &Archive,
    group: &Group<'_>,
) -> Result<Vec<Value>, GameError> {
    let mut setup = game.setup(&archive.options, archive.seed)?;
    if group.events.len() == setup.len() + 1 {
        let last = &group.events[setup.len()].payload;
        if let Some(settings) = ClockSettings::recorded_in(last) {
            if settings.validate().is_ok() {
                setup.push(settings.event());
            }
        }
    }
    Ok(setup)
}

/// When the decision was recorded: the time its clock decides at.
fn group_time(group: &Group<'_>) -> Result<chrono::DateTime<chrono::Utc>, GameError> {
    clock::recorded_time(&group.events[0])
}

fn check_setup(group: &Group<'_>, verdict: &Result<Vec<Value>, GameError>) -> Option<Divergence> {
    let expected = match verdict {
        Ok(events) => events,
        Err(e) => {
            return Some(Divergence::new(
                1,
                0,
                Cause::SetupMismatch,
                format!("the setup cannot be drawn for these options: {e}"),
            ))
        }
    };
    for event in group.events {
        if event.event_type != umpire_domain::erased::event_type(&event.payload) {
            let mut found = Divergence::new(
                event.seq,
                0,
                Cause::EventTypeMismatch,
                format!(
                    "event_type `{}` is not the payload's type",
                    event.event_type
                ),
            );
            found.recorded = Some(Box::new(event.payload.clone()));
            return Some(found);
        }
    }
    compare_events(group, 0, expected, Cause::SetupMismatch)
}

fn compare(
    group: &Group<'_>,
    version: u64,
    verdict: &Result<Vec<Value>, GameError>,
) -> Option<Divergence> {
    match verdict {
        Ok(expected) => compare_events(group, version, expected, Cause::EventDiffers),
        Err(GameError::Violation(violation)) if is_untimely(violation) => {
            let mut found = Divergence::new(
                group.first_seq(),
                version,
                Cause::UntimelyTimeout,
                format!(
                    "the clock's timeout is not borne out by the log: {}",
                    violation.message
                ),
            );
            found.recorded = Some(Box::new(group.action.clone()));
            found.violation = Some(violation.code.to_string());
            Some(found)
        }
        Err(GameError::Violation(violation)) => {
            let mut found = Divergence::new(
                group.first_seq(),
                version,
                Cause::ActionRefused,
                format!(
                    "today's rules refuse this recorded action by {}: {violation}",
                    group.actor
                ),
            );
            found.recorded = Some(Box::new(group.action.clone()));
            found.violation = Some(violation.code.to_string());
            Some(found)
        }
        Err(other) => {
            let mut found = Divergence::new(
                group.first_seq(),
                version,
                Cause::MalformedAction,
                format!("the recorded action cannot be read: {other}"),
            );
            found.recorded = Some(Box::new(group.action.clone()));
            Some(found)
        }
    }
}

/// The clock's refusals of a timeout it recorded.
fn is_untimely(violation: &Violation) -> bool {
    [
        clock::EARLY.code,
        clock::SEAT_NOT_DUE.code,
        clock::WRONG_DEADLINE.code,
    ]
    .contains(&violation.code)
}

fn compare_events(
    group: &Group<'_>,
    version: u64,
    expected: &[Value],
    differs: Cause,
) -> Option<Divergence> {
    for (index, event) in group.events.iter().enumerate() {
        let Some(wanted) = expected.get(index) else {
            let mut found = Divergence::new(
                event.seq,
                version,
                Cause::UnexplainedEvent,
                format!(
                    "the {} produces {} event(s), but {} are recorded: this one is explained by nothing",
                    if group.is_setup() { "setup".to_string() } else { format!("action by {}", group.actor) },
                    expected.len(),
                    group.events.len()
                ),
            );
            found.recorded = Some(Box::new(event.payload.clone()));
            return Some(found);
        };
        if *wanted != event.payload {
            let mut found = Divergence::new(
                event.seq,
                version,
                differs,
                if differs == Cause::SetupMismatch {
                    "the recorded setup is not the deal this seed and these options produce"
                        .to_string()
                } else {
                    format!(
                        "the action by {} produces a different event under today's rules",
                        group.actor
                    )
                },
            );
            found.expected = Some(Box::new(wanted.clone()));
            found.recorded = Some(Box::new(event.payload.clone()));
            return Some(found);
        }
    }
    if expected.len() > group.events.len() {
        let seq = group.events.last().map(|e| e.seq).unwrap_or(version) + 1;
        let mut found = Divergence::new(
            seq,
            version,
            Cause::MissingEvent,
            format!(
                "the rules produce {} event(s) here, but only {} are recorded",
                expected.len(),
                group.events.len()
            ),
        );
        found.expected = Some(Box::new(expected[group.events.len()].clone()));
        return Some(found);
    }
    None
}

//! The audit of one game for a disputed ruling: every action ever submitted,
//! accepted or rejected, in version order, with who sent it, the state before
//! it as each seat and a spectator saw it, what was recorded and what today's
//! rules say; the hash chain and the first divergence.

use std::collections::BTreeMap;
use std::convert::Infallible;

use serde::Serialize;
use serde_json::Value;
use umpire_domain::actor_label;
use umpire_domain::aggregate::GameAggregate;
use umpire_domain::erased::Malformed;
use umpire_domain::{Actor, DynMatch, GameError, Registry, ScoreSummary, StatusJson, Viewer};
use uuid::Uuid;

use umpire_domain::record::RecordedRejection;

use crate::format::Archive;
use crate::replay::{self, Divergence, Group};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// The setup: the deal drawn from the seed.
    Setup,
    /// An action the log records as accepted.
    Accepted,
    /// An action that was refused at the time.
    Rejected,
    /// Recorded after the first divergence: listed, but not re-decided,
    /// since the state before it is no longer known to be right.
    Unchecked,
}

/// A ruling: the violation that refused an action.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Ruling {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Where that section is served on the service (`/rules/<game>#s<n>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_url: Option<String>,
}

impl Ruling {
    fn new(code: String, message: String, rule: Option<String>) -> Ruling {
        Ruling {
            rule_url: rule.as_deref().and_then(umpire_domain::violation::rule_url),
            code,
            message,
            rule,
        }
    }

    /// The ruling a game's refusal makes: its violation; `invalid_action`
    /// for an action the game cannot read, the code the service answers
    /// and keeps such a refusal with (so that the audit upholds it rather
    /// than count it disputed); `malformed` for anything else unreadable.
    pub(crate) fn of(error: &GameError) -> Ruling {
        match error {
            GameError::Violation(violation) => Ruling::new(
                violation.code.to_string(),
                violation.message.clone(),
                Some(violation.rule.to_string()),
            ),
            GameError::Malformed {
                what: Malformed::Action,
                ..
            } => Ruling::new("invalid_action".into(), error.to_string(), None),
            other => Ruling::malformed(other.to_string()),
        }
    }

    fn malformed(message: String) -> Ruling {
        Ruling::new("malformed".into(), message, None)
    }
}

/// What the rules decided about one action: accepted, with the events it
/// makes, or refused, with the ruling. The one form of a decision in an
/// audit and a what-if (each adds what it compares it with).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Verdict {
    pub accepted: bool,
    /// The events the rules produce, when accepted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(schema_with = umpire_domain::schema_names::any_events)]
    pub events: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violation: Option<Ruling>,
}

impl Verdict {
    /// The verdict of a decision: what `decide` (or `setup`) returned.
    pub fn of(decision: &Result<Vec<Value>, GameError>) -> Verdict {
        match decision {
            Ok(events) => Verdict {
                accepted: true,
                events: events.clone(),
                violation: None,
            },
            Err(error) => Verdict::refused(Ruling::of(error)),
        }
    }

    fn refused(ruling: Ruling) -> Verdict {
        Verdict {
            accepted: false,
            events: Vec::new(),
            violation: Some(ruling),
        }
    }
}

/// What today's rules say about the entry's action, against the same state.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct TodaysVerdict {
    #[serde(flatten)]
    #[schema(inline)]
    pub verdict: Verdict,
    /// True when today's verdict is the recorded one: the same events for an
    /// accepted action, a refusal with the same code for a rejected one.
    pub agrees: bool,
}

/// An event as the log records it (the audit's short form).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct EventOfRecord {
    pub seq: u64,
    pub event_type: String,
    #[schema(schema_with = umpire_domain::schema_names::any_event)]
    pub payload: Value,
    pub hash: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct AuditEntry {
    pub kind: EntryKind,
    /// The version the action was decided (or refused) against.
    pub at_version: u64,
    /// `system`, `umpire` or `seat:<name>`.
    pub actor: String,
    #[serde(skip_serializing_if = "Value::is_null")]
    #[schema(schema_with = umpire_domain::schema_names::action_as_sent)]
    pub action: Value,
    /// The rules version in force when it was decided: the ruling of record.
    pub rules_version: u32,
    pub recorded_at: String,
    /// The state before, as each viewer saw it: `spectator` and `seat:<name>`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    #[schema(schema_with = umpire_domain::schema_names::views_by_viewer)]
    pub before: BTreeMap<String, Value>,
    /// What the log records (accepted and setup entries).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventOfRecord>,
    /// The ruling of record for a rejected action.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violation: Option<Ruling>,
    /// Today's re-decision (absent for unchecked entries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub today: Option<TodaysVerdict>,
    /// Set on the entry where the log diverges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
    /// For a rejected action: how many times it was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeats: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ChainReport {
    pub intact: bool,
    pub events: u64,
    /// The hash of the last event: what a signed receipt would pin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_break: Option<Divergence>,
}

/// The audit of one game (see `archive/README.md`).
// Its opening, its entries and its closing, in the order the streamed answer
// writes them (`routes/archives.rs`), so that the two are one document.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct AuditReport {
    #[serde(flatten)]
    #[schema(inline)]
    pub opening: AuditOpening,
    pub entries: Vec<AuditEntry>,
    #[serde(flatten)]
    #[schema(inline)]
    pub closing: AuditClosing,
}

fn views(state: &dyn DynMatch, seats: &[String]) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    if let Ok(view) = state.view(&Viewer::Spectator) {
        out.insert("spectator".to_string(), view);
    }
    for seat in seats {
        if let Ok(view) = state.view(&Viewer::Seat(seat.clone())) {
            out.insert(actor_label::write(&Actor::Seat(seat)), view);
        }
    }
    out
}

/// The game (its match and its clock) a rejection is judged against.
type Judge<'a> = Option<&'a GameAggregate>;

fn rejection_entry(
    rejection: &RecordedRejection,
    judge: Judge<'_>,
    seats: &[String],
) -> AuditEntry {
    let recorded = Ruling::new(
        rejection.code.clone(),
        rejection.message.clone(),
        rejection.rule.clone(),
    );
    let (before, today) = match judge {
        // A null action is the count of refusals made beyond those kept: there
        // is no action to decide again.
        Some(game) if rejection.action.is_null() => (views(game.state.as_ref(), seats), None),
        Some(game) => {
            let refused_at = chrono::DateTime::parse_from_rfc3339(&rejection.recorded_at)
                .map(|time| time.with_timezone(&chrono::Utc));
            let today = match (actor_label::read(&rejection.actor), refused_at) {
                (Some(_), Ok(refused_at)) => {
                    // Every refusal was of an action sent to the service,
                    // decided by this same entry: re-decided by it, the
                    // refusal is judged as the service judged it.
                    let decision = game
                        .decide(&rejection.actor, &rejection.action, refused_at)
                        .map(|decision| decision.events);
                    let verdict = Verdict::of(&decision);
                    // A refusal agrees when today's rules refuse it too, for
                    // the same reason.
                    let agrees = verdict
                        .violation
                        .as_ref()
                        .is_some_and(|ruling| ruling.code == recorded.code);
                    TodaysVerdict { verdict, agrees }
                }
                (None, _) => TodaysVerdict {
                    verdict: Verdict::refused(Ruling::malformed(format!(
                        "`{}` is not an actor",
                        rejection.actor
                    ))),
                    agrees: false,
                },
                (Some(_), Err(error)) => TodaysVerdict {
                    verdict: Verdict::refused(Ruling::malformed(format!(
                        "recorded_at `{}` is not a time: {error}",
                        rejection.recorded_at
                    ))),
                    agrees: false,
                },
            };
            (views(game.state.as_ref(), seats), Some(today))
        }
        None => (BTreeMap::new(), None),
    };
    AuditEntry {
        kind: if judge.is_some() {
            EntryKind::Rejected
        } else {
            EntryKind::Unchecked
        },
        at_version: rejection.at_version,
        actor: rejection.actor.clone(),
        action: rejection.action.clone(),
        rules_version: rejection.rules_version,
        recorded_at: rejection.recorded_at.clone(),
        before,
        events: Vec::new(),
        violation: Some(recorded),
        today,
        divergence: None,
        repeats: Some(rejection.repeats),
    }
}

fn recorded_events(group: &Group<'_>) -> Vec<EventOfRecord> {
    group
        .events
        .iter()
        .map(|event| EventOfRecord {
            seq: event.seq,
            event_type: event.event_type.clone(),
            payload: event.payload.clone(),
            hash: event.hash.clone(),
        })
        .collect()
}

fn unchecked_entry(group: &Group<'_>) -> AuditEntry {
    let first = &group.events[0];
    AuditEntry {
        kind: EntryKind::Unchecked,
        at_version: group.decided_at,
        actor: group.actor.to_string(),
        action: group.action.clone(),
        rules_version: first.rules_version,
        recorded_at: first.recorded_at.clone(),
        before: BTreeMap::new(),
        events: recorded_events(group),
        violation: None,
        today: None,
        divergence: None,
        repeats: None,
    }
}

/// What a report says before its entries: known from the archive alone.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct AuditOpening {
    pub game_id: Uuid,
    pub game: String,
    #[schema(schema_with = umpire_domain::schema_names::any_options)]
    pub options: Value,
    /// The rules version of this build, which re-decided every action.
    pub rules_version_today: u32,
    /// Events in the log.
    pub version: u64,
}

/// What a report says after its entries: known only once every one was
/// judged.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct AuditClosing {
    /// True when the chain holds and every action re-decides to the log.
    pub valid: bool,
    pub chain: ChainReport,
    /// The first decision today's rules do not reproduce.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
    /// The earlier of the chain break and the divergence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_failure: Option<Divergence>,
    /// Rejections that today's rules would decide differently.
    pub disputed_rejections: usize,
    /// The score at the last verified version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<ScoreSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<StatusJson>,
}

/// Why an incremental audit stopped before its end.
#[derive(Debug)]
pub enum AuditStop<E> {
    /// The game or its options cannot be handled: the failure, at seq 0 (or
    /// where the rules produced an event they cannot fold).
    Unauditable(Divergence),
    /// The rejections' source or the entries' sink failed.
    Stopped(E),
}

/// The opening of `archive`'s report; fails as [`audit`] does when the
/// registry cannot handle the game or its options.
pub fn audit_opening(registry: &Registry, archive: &Archive) -> Result<AuditOpening, Divergence> {
    let game = replay::game_of(registry, archive)?;
    Ok(AuditOpening {
        game_id: archive.game_id,
        game: archive.game.clone(),
        options: archive.options.clone(),
        rules_version_today: game.rules_version(),
        version: archive.version(),
    })
}

/// Judges entries one at a time and hands each to a sink, pulling rejections
/// from a source only as their turn comes: at most one rejection and one
/// entry are held, however many the game has.
struct Auditor<R, F, E> {
    seats: Vec<String>,
    rejections: R,
    /// The next rejection, read from the source but not yet written.
    next_rejection: Option<RecordedRejection>,
    write_entry: F,
    stopped: Option<E>,
    disputed_rejections: usize,
}

impl<R, F, E> Auditor<R, F, E>
where
    R: Iterator<Item = Result<RecordedRejection, E>>,
    F: FnMut(AuditEntry) -> Result<(), E>,
{
    fn peek_rejection(&mut self) -> Option<&RecordedRejection> {
        if self.stopped.is_some() {
            return None;
        }
        if self.next_rejection.is_none() {
            match self.rejections.next()? {
                Ok(rejection) => self.next_rejection = Some(rejection),
                Err(error) => {
                    self.stopped = Some(error);
                    return None;
                }
            }
        }
        self.next_rejection.as_ref()
    }

    fn write(&mut self, entry: AuditEntry) {
        if self.stopped.is_some() {
            return;
        }
        if entry.kind == EntryKind::Rejected && entry.today.as_ref().is_some_and(|t| !t.agrees) {
            self.disputed_rejections += 1;
        }
        if let Err(error) = (self.write_entry)(entry) {
            self.stopped = Some(error);
        }
    }

    /// Writes the rejections refused at a version `up_to` passes, judged
    /// against `state` (listed unjudged without one).
    fn write_rejections(&mut self, up_to: impl Fn(u64) -> bool, judge: Judge<'_>) {
        while self.peek_rejection().is_some_and(|r| up_to(r.at_version)) {
            let rejection = self.next_rejection.take().expect("peeked");
            let entry = rejection_entry(&rejection, judge, &self.seats);
            self.write(entry);
        }
    }
}

/// Audits `archive`'s log with the rejections from `rejections` (which must
/// come in version order; `archive.rejections` is not read), handing each
/// entry to `write_entry` as soon as it is judged, in the order [`audit`]
/// lists them. Memory is bounded by the log, not by the rejections.
///
/// The first error of the source or the sink stops the audit
/// ([`AuditStop::Stopped`]); entries already written stay written.
pub fn audit_entries<E>(
    registry: &Registry,
    archive: &Archive,
    rejections: impl Iterator<Item = Result<RecordedRejection, E>>,
    write_entry: impl FnMut(AuditEntry) -> Result<(), E>,
) -> Result<AuditClosing, AuditStop<E>> {
    let game = replay::game_of(registry, archive).map_err(AuditStop::Unauditable)?;
    let mut auditor = Auditor {
        seats: game.seats(&archive.options).unwrap_or_default(),
        rejections,
        next_rejection: None,
        write_entry,
        stopped: None,
        disputed_rejections: 0,
    };
    let mut groups_seen = 0;
    let replayed = replay::replay(registry, archive, |step| {
        groups_seen += 1;
        if auditor.stopped.is_some() {
            return;
        }
        let version = step.before.state.version();
        // Rejected attempts made while the game stood at this version came
        // before the action that moved it on.
        if step.divergence.is_none() {
            auditor.write_rejections(|at| at <= version, Some(step.before));
        }
        let group = step.group;
        let first = &group.events[0];
        let today = TodaysVerdict {
            verdict: Verdict::of(step.verdict),
            agrees: step.verdict.is_ok() && step.divergence.is_none(),
        };
        auditor.write(AuditEntry {
            kind: if group.is_setup() && version == 0 {
                EntryKind::Setup
            } else {
                EntryKind::Accepted
            },
            at_version: group.decided_at,
            actor: group.actor.to_string(),
            action: group.action.clone(),
            rules_version: first.rules_version,
            recorded_at: first.recorded_at.clone(),
            before: if version == 0 {
                BTreeMap::new()
            } else {
                views(step.before.state.as_ref(), &auditor.seats)
            },
            events: recorded_events(&group),
            violation: None,
            today: Some(today),
            divergence: step.divergence.cloned(),
            repeats: None,
        });
    })
    .map_err(AuditStop::Unauditable)?;
    let verified_version = replayed.game.state.version();
    // Rejections at the final verified version were judged against it.
    if replayed.divergence.is_none() {
        auditor.write_rejections(|at| at <= verified_version, Some(&replayed.game));
    }
    // After a divergence the rest of the log is listed, not judged, in
    // version order; at one version an action comes before the rejections.
    let mut rest = replay::groups(&archive.events).split_off(groups_seen);
    rest.sort_by_key(|group| group.decided_at);
    for group in &rest {
        auditor.write_rejections(|at| at < group.decided_at, None);
        auditor.write(unchecked_entry(group));
    }
    auditor.write_rejections(|_| true, None);
    if let Some(error) = auditor.stopped {
        return Err(AuditStop::Stopped(error));
    }
    let first_failure = replayed.first_failure().cloned();
    Ok(AuditClosing {
        valid: first_failure.is_none(),
        chain: ChainReport {
            intact: replayed.chain_break.is_none(),
            events: archive.version(),
            head: archive.events.last().map(|e| e.hash.clone()),
            first_break: replayed.chain_break.clone(),
        },
        divergence: replayed.divergence.clone(),
        first_failure,
        disputed_rejections: auditor.disputed_rejections,
        score: Some(replayed.game.state.summary()),
        status: Some(replayed.game.state.status()),
    })
}

/// Audits a whole archive. A game or options the registry cannot handle is
/// itself the failure (`Err`), at seq 0.
pub fn audit(registry: &Registry, archive: &Archive) -> Result<AuditReport, Divergence> {
    let opening = audit_opening(registry, archive)?;
    let mut rejections: Vec<&RecordedRejection> = archive.rejections.iter().collect();
    rejections.sort_by_key(|r| r.at_version);
    let mut entries = Vec::new();
    let closing = audit_entries(
        registry,
        archive,
        rejections
            .into_iter()
            .map(|rejection| Ok::<_, Infallible>(rejection.clone())),
        |entry| {
            entries.push(entry);
            Ok(())
        },
    )
    .map_err(|stop| match stop {
        AuditStop::Unauditable(divergence) => divergence,
        AuditStop::Stopped(never) => match never {},
    })?;
    Ok(AuditReport {
        opening,
        entries,
        closing,
    })
}

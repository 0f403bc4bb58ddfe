//! The audit of one game for a disputed ruling: every action ever submitted,
//! accepted or rejected, in version order, with who sent it, the state before
//! it as each seat and a spectator saw it, what was recorded and what today's
//! rules say; the hash chain and the first divergence.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use umpire_domain::{DynMatch, GameError, Registry, ScoreSummary, StatusJson, Viewer};
use uuid::Uuid;

use crate::format::{Archive, ArchivedRejection};
use crate::replay::{self, parse_actor, Divergence, Group};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ruling {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

/// What today's rules say about the entry's action, against the same state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TodaysVerdict {
    pub accepted: bool,
    /// The events today's rules produce, when accepted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violation: Option<Ruling>,
    /// True when today's verdict is the recorded one: the same events for an
    /// accepted action, a refusal with the same code for a rejected one.
    pub agrees: bool,
}

/// An event as recorded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordedEvent {
    pub seq: u64,
    pub event_type: String,
    pub payload: Value,
    pub hash: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditEntry {
    pub kind: EntryKind,
    /// The version the action was decided (or refused) against.
    pub at_version: u64,
    /// `system`, `umpire` or `seat:<name>`.
    pub actor: String,
    #[serde(skip_serializing_if = "Value::is_null")]
    pub action: Value,
    /// The rules version in force when it was decided: the ruling of record.
    pub rules_version: u32,
    pub recorded_at: String,
    /// The state before, as each viewer saw it: `spectator` and `seat:<name>`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub before: BTreeMap<String, Value>,
    /// What the log records (accepted and setup entries).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<RecordedEvent>,
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

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChainReport {
    pub intact: bool,
    pub events: u64,
    /// The hash of the last event: what a signed receipt would pin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_break: Option<Divergence>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    pub game_id: Uuid,
    pub game: String,
    pub options: Value,
    /// The rules version of this build, which re-decided every action.
    pub rules_version_today: u32,
    /// Events in the log.
    pub version: u64,
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
    pub entries: Vec<AuditEntry>,
    /// The score at the last verified version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<ScoreSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<StatusJson>,
}

fn ruling_of(error: &GameError) -> Ruling {
    match error {
        GameError::Violation(violation) => Ruling {
            code: violation.code.to_string(),
            message: violation.message.clone(),
            rule: Some(violation.rule.to_string()),
        },
        other => Ruling {
            code: "malformed".into(),
            message: other.to_string(),
            rule: None,
        },
    }
}

fn views(state: &dyn DynMatch, seats: &[String]) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    if let Ok(view) = state.view(&Viewer::Spectator) {
        out.insert("spectator".to_string(), view);
    }
    for seat in seats {
        if let Ok(view) = state.view(&Viewer::Seat(seat.clone())) {
            out.insert(format!("seat:{seat}"), view);
        }
    }
    out
}

fn rejection_entry(
    rejection: &ArchivedRejection,
    state: Option<&dyn DynMatch>,
    seats: &[String],
) -> AuditEntry {
    let recorded = Ruling {
        code: rejection.code.clone(),
        message: rejection.message.clone(),
        rule: rejection.rule.clone(),
    };
    let (before, today) = match state {
        // A null action is the count of refusals made beyond those kept: there
        // is no action to decide again.
        Some(state) if rejection.action.is_null() => (views(state, seats), None),
        Some(state) => {
            let today = match parse_actor(&rejection.actor) {
                Some(actor) => match state.decide(&actor, &rejection.action) {
                    Ok(events) => TodaysVerdict {
                        accepted: true,
                        events,
                        violation: None,
                        agrees: false,
                    },
                    Err(error) => {
                        let ruling = ruling_of(&error);
                        TodaysVerdict {
                            accepted: false,
                            events: Vec::new(),
                            agrees: ruling.code == recorded.code,
                            violation: Some(ruling),
                        }
                    }
                },
                None => TodaysVerdict {
                    accepted: false,
                    events: Vec::new(),
                    violation: Some(Ruling {
                        code: "malformed".into(),
                        message: format!("`{}` is not an actor", rejection.actor),
                        rule: None,
                    }),
                    agrees: false,
                },
            };
            (views(state, seats), Some(today))
        }
        None => (BTreeMap::new(), None),
    };
    AuditEntry {
        kind: if state.is_some() {
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

fn recorded_events(group: &Group<'_>) -> Vec<RecordedEvent> {
    group
        .events
        .iter()
        .map(|event| RecordedEvent {
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

/// Audits a whole archive. A game or options the registry cannot handle is
/// itself the failure (`Err`), at seq 0.
pub fn audit(registry: &Registry, archive: &Archive) -> Result<AuditReport, Divergence> {
    let game = replay::game_of(registry, archive)?;
    let seats = game.seats(&archive.options).unwrap_or_default();
    let mut rejections: Vec<&ArchivedRejection> = archive.rejections.iter().collect();
    rejections.sort_by_key(|r| r.at_version);
    let mut next_rejection = 0;
    let mut entries = Vec::new();
    let mut groups_seen = 0;
    let replayed = replay::replay(registry, archive, |step| {
        groups_seen += 1;
        let version = step.before.version();
        // Rejected attempts made while the game stood at this version came
        // before the action that moved it on.
        while next_rejection < rejections.len()
            && rejections[next_rejection].at_version <= version
            && step.divergence.is_none()
        {
            entries.push(rejection_entry(
                rejections[next_rejection],
                Some(step.before),
                &seats,
            ));
            next_rejection += 1;
        }
        let group = step.group;
        let first = &group.events[0];
        let today = match step.verdict {
            Ok(events) => TodaysVerdict {
                accepted: true,
                events: events.clone(),
                violation: None,
                agrees: step.divergence.is_none(),
            },
            Err(error) => TodaysVerdict {
                accepted: false,
                events: Vec::new(),
                violation: Some(ruling_of(error)),
                agrees: false,
            },
        };
        entries.push(AuditEntry {
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
                views(step.before, &seats)
            },
            events: recorded_events(&group),
            violation: None,
            today: Some(today),
            divergence: step.divergence.cloned(),
            repeats: None,
        });
    })?;
    let verified_version = replayed.state.version();
    let diverged = replayed.divergence.is_some();
    // Rejections at the final verified version were judged against it.
    while next_rejection < rejections.len()
        && rejections[next_rejection].at_version <= verified_version
        && !diverged
    {
        entries.push(rejection_entry(
            rejections[next_rejection],
            Some(replayed.state.as_ref()),
            &seats,
        ));
        next_rejection += 1;
    }
    // After a divergence the rest of the log is listed, not judged.
    let all_groups = replay::groups(&archive.events);
    let mut rest: Vec<AuditEntry> = all_groups
        .iter()
        .skip(groups_seen)
        .map(unchecked_entry)
        .collect();
    rest.extend(
        rejections[next_rejection..]
            .iter()
            .map(|rejection| rejection_entry(rejection, None, &seats)),
    );
    rest.sort_by_key(|entry| entry.at_version);
    entries.extend(rest);
    let disputed_rejections = entries
        .iter()
        .filter(|e| e.kind == EntryKind::Rejected && e.today.as_ref().is_some_and(|t| !t.agrees))
        .count();
    let first_failure = replayed.first_failure().cloned();
    Ok(AuditReport {
        game_id: archive.game_id,
        game: archive.game.clone(),
        options: archive.options.clone(),
        rules_version_today: game.rules_version(),
        version: archive.version(),
        valid: first_failure.is_none(),
        chain: ChainReport {
            intact: replayed.chain_break.is_none(),
            events: archive.version(),
            head: archive.events.last().map(|e| e.hash.clone()),
            first_break: replayed.chain_break.clone(),
        },
        divergence: replayed.divergence.clone(),
        first_failure,
        disputed_rejections,
        entries,
        score: Some(replayed.state.summary()),
        status: Some(replayed.state.status()),
    })
}

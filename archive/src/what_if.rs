//! What-if: the same game's actions re-run under other options (another
//! ruling, another scoring rule), side by side with the log as recorded.
//!
//! The setup is drawn again from the recorded seed under the other options,
//! so the deal is the same wherever the options do not change it; each
//! recorded action is then decided under the other options. An action the
//! other rules refuse is skipped and listed. The first version where the two
//! games differ (other events, a refusal, or another provisional score) is
//! reported, and the final scores are compared seat by seat.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use umpire_domain::clock;
use umpire_domain::{actor_label, Actor};
use umpire_domain::{DynMatch, GameError, Registry, ScoreSummary};
use uuid::Uuid;

use crate::audit::{Ruling, Verdict};
use crate::format::Archive;
use crate::replay::{self, Divergence};

/// What one decision produced in one of the two games.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = WhatIfOutcome)]
pub struct Outcome {
    #[serde(flatten)]
    #[schema(inline)]
    pub verdict: Verdict,
    /// The provisional score after this decision.
    pub score: ScoreSummary,
}

/// The first place where the two games part.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Difference {
    /// The version of the recorded game the action was decided against.
    pub version: u64,
    /// The first recorded event of that action.
    pub seq: u64,
    pub actor: String,
    #[schema(schema_with = umpire_domain::schema_names::action_as_sent)]
    pub action: Value,
    /// `events`, `refused` or `score`.
    pub what: &'static str,
    pub recorded: Outcome,
    pub alternative: Outcome,
}

#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = WhatIfRefusal)]
pub struct Refusal {
    pub version: u64,
    pub actor: String,
    #[schema(schema_with = umpire_domain::schema_names::action_as_sent)]
    pub action: Value,
    pub violation: Ruling,
}

#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ScoreChange {
    pub recorded: i64,
    pub alternative: i64,
    pub delta: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct WhatIfReport {
    pub game_id: Uuid,
    pub game: String,
    #[schema(schema_with = umpire_domain::schema_names::any_options)]
    pub options: Value,
    #[schema(schema_with = umpire_domain::schema_names::any_options)]
    pub alternative_options: Value,
    /// True when the setup events differ (a different deal, or the options
    /// echoed in the setup record).
    pub setup_differs: bool,
    /// Actions re-run.
    pub actions: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_difference: Option<Difference>,
    /// Actions the alternative rules refuse (skipped there).
    pub refused: Vec<Refusal>,
    pub recorded: ScoreSummary,
    pub alternative: ScoreSummary,
    /// Per seat: recorded total, alternative total, and the change.
    pub changes: BTreeMap<String, ScoreChange>,
    pub winners_change: bool,
}

/// Why a what-if could not run.
#[derive(Debug, thiserror::Error)]
pub enum WhatIfError {
    /// The recorded game itself does not replay.
    #[error("the archive does not replay: {0}")]
    Invalid(Divergence),
    #[error("the alternative options are refused: {0}")]
    Options(GameError),
}

/// RFC 7396 JSON merge patch: `patch` over `base`.
pub fn merge_patch(base: &Value, patch: &Value) -> Value {
    match (base, patch) {
        (Value::Object(base), Value::Object(patch)) => {
            let mut merged = base.clone();
            for (key, value) in patch {
                if value.is_null() {
                    merged.remove(key);
                } else {
                    let next = merge_patch(merged.get(key).unwrap_or(&Value::Null), value);
                    merged.insert(key.clone(), next);
                }
            }
            Value::Object(merged)
        }
        (_, patch) => patch.clone(),
    }
}

/// The verdict of `decision`, with the score of `state` after it.
fn outcome_of(decision: &Result<Vec<Value>, GameError>, state: &dyn DynMatch) -> Outcome {
    Outcome {
        verdict: Verdict::of(decision),
        score: state.summary(),
    }
}

/// Re-runs the archive's actions under `options_patch` merged over its options.
pub fn what_if(
    registry: &Registry,
    archive: &Archive,
    options_patch: &Value,
) -> Result<WhatIfReport, WhatIfError> {
    let recorded = replay::replay(registry, archive, |_| {}).map_err(WhatIfError::Invalid)?;
    if let Some(failure) = recorded.first_failure() {
        return Err(WhatIfError::Invalid(failure.clone()));
    }
    // Registry and options were checked by the replay.
    let game = registry.get(&archive.game).map_err(WhatIfError::Options)?;
    let alternative_options = game
        .validate_options(&merge_patch(&archive.options, options_patch))
        .map_err(WhatIfError::Options)?;
    let alternative_setup = game
        .setup(&alternative_options, archive.seed)
        .map_err(WhatIfError::Options)?;
    let mut alternative = game
        .new_match(&alternative_options)
        .map_err(WhatIfError::Options)?;
    for event in &alternative_setup {
        alternative
            .apply_json(event)
            .map_err(WhatIfError::Options)?;
    }
    let mut original = game
        .new_match(&archive.options)
        .map_err(WhatIfError::Options)?;
    let groups = replay::groups(&archive.events);
    let mut setup_differs = false;
    let mut first_difference = None;
    let mut refused = Vec::new();
    let mut actions = 0;
    for (index, group) in groups.iter().enumerate() {
        let payloads: Vec<Value> = group.events.iter().map(|e| e.payload.clone()).collect();
        for payload in &payloads {
            // The log replayed cleanly, so these are events decide produced.
            original
                .apply_json(payload)
                .map_err(|e| WhatIfError::Invalid(invalid(group.first_seq(), e)))?;
        }
        if index == 0 && group.is_setup() {
            setup_differs = payloads != alternative_setup;
            continue;
        }
        actions += 1;
        // The clock is not the game's: under other options a clock timeout
        // is the umpire's timeout of its seat, and the umpire's actions on
        // the clock are passed over, as are reissues of seats' tokens and
        // the umpire's rulings.
        if clock::is_clock_event(group.action)
            || umpire_domain::seat_tokens::is_seat_token_action(group.action)
            || umpire_domain::rulings::is_ruling_action(group.action)
        {
            continue;
        }
        let (actor, action) = if group.actor == actor_label::CLOCK {
            let seat = group
                .action
                .get("seat")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let Ok(timeout) = alternative.timeout_action(seat) else {
                continue;
            };
            (Actor::Umpire, timeout)
        } else {
            let Some(actor) = actor_label::read(group.actor) else {
                continue;
            };
            (actor, group.action.clone())
        };
        let verdict = alternative.decide(&actor, &action);
        if let Ok(events) = &verdict {
            for event in events {
                alternative
                    .apply_json(event)
                    .map_err(|e| WhatIfError::Invalid(invalid(group.first_seq(), e)))?;
            }
        }
        if let Err(error) = &verdict {
            refused.push(Refusal {
                version: group.decided_at,
                actor: group.actor.to_string(),
                action: group.action.clone(),
                violation: Ruling::of(error),
            });
        }
        if first_difference.is_none() {
            let recorded_outcome = outcome_of(&Ok(payloads), original.as_ref());
            let alternative_outcome = outcome_of(&verdict, alternative.as_ref());
            let what = if !alternative_outcome.verdict.accepted {
                Some("refused")
            } else if alternative_outcome.verdict.events != recorded_outcome.verdict.events {
                Some("events")
            } else if alternative_outcome.score != recorded_outcome.score {
                Some("score")
            } else {
                None
            };
            if let Some(what) = what {
                first_difference = Some(Difference {
                    version: group.decided_at,
                    seq: group.first_seq(),
                    actor: group.actor.to_string(),
                    action: group.action.clone(),
                    what,
                    recorded: recorded_outcome,
                    alternative: alternative_outcome,
                });
            }
        }
    }
    let recorded_summary = original.summary();
    let alternative_summary = alternative.summary();
    let mut changes = BTreeMap::new();
    for (seat, total) in &recorded_summary.totals {
        let other = alternative_summary.totals.get(seat).copied().unwrap_or(0);
        changes.insert(
            seat.clone(),
            ScoreChange {
                recorded: *total,
                alternative: other,
                delta: other - total,
            },
        );
    }
    Ok(WhatIfReport {
        game_id: archive.game_id,
        game: archive.game.clone(),
        options: archive.options.clone(),
        alternative_options,
        setup_differs,
        actions,
        first_difference,
        refused,
        winners_change: recorded_summary.winners != alternative_summary.winners,
        recorded: recorded_summary,
        alternative: alternative_summary,
        changes,
    })
}

fn invalid(seq: u64, error: GameError) -> Divergence {
    Divergence {
        seq,
        version: seq.saturating_sub(1),
        cause: replay::Cause::MalformedAction,
        message: error.to_string(),
        expected: None,
        recorded: None,
        violation: None,
    }
}

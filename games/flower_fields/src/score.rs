//! The scoring library (§7), white-flower garnets (§4), the result and the
//! score sheet as each viewer may see it (§8).

use std::collections::BTreeSet;

use serde::Serialize;
use umpire_domain::{ScoreSummary, Seat, SeatIndex, Viewer};
use utoipa::ToSchema;

use crate::flowers::{
    all_fields, all_seats, clockwise_field, counterclockwise_field, managers, FieldIndex,
    FlowerFieldsCell, FlowerFieldsFlower, SEAT_COUNT,
};
use crate::options::FlowerFieldsScoringRule;
use crate::state::{
    FieldState, FlowerFieldsGarnets, FlowerFieldsPointPenalty, FlowerFieldsResult,
    FlowerFieldsState,
};

/// Points of one flower type in one field, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct FlowerFieldsFlowerScore {
    pub flower: FlowerFieldsFlower,
    pub rule: FlowerFieldsScoringRule,
    /// How many flowers of the type the field holds.
    pub count: i64,
    pub points: i64,
    pub why: String,
}

/// One field scored for one of its managers, against that manager's other
/// field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct FlowerFieldsFieldScore {
    pub field: u8,
    pub other_field: u8,
    pub points: i64,
    pub flowers: Vec<FlowerFieldsFlowerScore>,
}

/// One seat's line of the score sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct FlowerFieldsSeatScore {
    pub seat: SeatIndex,
    pub total: i64,
    pub clockwise: FlowerFieldsFieldScore,
    pub counterclockwise: FlowerFieldsFieldScore,
    pub penalties: Vec<FlowerFieldsPointPenalty>,
    pub penalty_points: i64,
    pub garnets: FlowerFieldsGarnets,
}

/// The score sheet. Before the end it is provisional and holds only the
/// lines the viewer can compute from what it sees: a seat its own line, a
/// spectator none, the umpire all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct FlowerFieldsScore {
    #[serde(rename = "final")]
    pub is_final: bool,
    pub seats: Vec<FlowerFieldsSeatScore>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<FlowerFieldsResult>,
}

fn count_of(field: &FieldState, flower: FlowerFieldsFlower) -> i64 {
    FlowerFieldsCell::all()
        .filter(|cell| field.flower_at(*cell) == Some(flower))
        .count() as i64
}

fn largest_group(field: &FieldState, flower: FlowerFieldsFlower) -> i64 {
    let mut seen = BTreeSet::new();
    let mut largest = 0;
    for start in FlowerFieldsCell::all().filter(|cell| field.flower_at(*cell) == Some(flower)) {
        if !seen.insert(start) {
            continue;
        }
        let mut size = 0;
        let mut stack = vec![start];
        while let Some(cell) = stack.pop() {
            size += 1;
            for neighbour in cell.neighbours() {
                if field.flower_at(neighbour) == Some(flower) && seen.insert(neighbour) {
                    stack.push(neighbour);
                }
            }
        }
        largest = largest.max(size);
    }
    largest
}

/// Scores one type in `field` under `rule`, with `other` as the other field.
pub fn flower_score(
    field: &FieldState,
    other: &FieldState,
    other_index: FieldIndex,
    flower: FlowerFieldsFlower,
    rule: FlowerFieldsScoringRule,
) -> FlowerFieldsFlowerScore {
    let cells: Vec<FlowerFieldsCell> = FlowerFieldsCell::all()
        .filter(|cell| field.flower_at(*cell) == Some(flower))
        .collect();
    let count = cells.len() as i64;
    let (points, why) = match rule {
        FlowerFieldsScoringRule::Garnets => {
            (0, format!("{count} {flower}: scores garnets, not points"))
        }
        FlowerFieldsScoringRule::LargestGroup { per_flower } => {
            let size = largest_group(field, flower);
            (
                size * per_flower,
                format!("largest {flower} group of {size} × {per_flower}"),
            )
        }
        FlowerFieldsScoringRule::NeighbourVariety { per_type } => {
            let varieties: i64 = cells
                .iter()
                .map(|cell| {
                    let types: BTreeSet<FlowerFieldsFlower> = cell
                        .neighbours()
                        .into_iter()
                        .filter_map(|neighbour| field.flower_at(neighbour))
                        .filter(|neighbour| *neighbour != FlowerFieldsFlower::Black)
                        .collect();
                    types.len() as i64
                })
                .sum();
            (
                varieties * per_type,
                format!("{count} {flower} see {varieties} neighbour types in all × {per_type}"),
            )
        }
        FlowerFieldsScoringRule::Mirror { points } => {
            let matches = cells
                .iter()
                .filter(|cell| other.flower_at(**cell) == Some(flower))
                .count() as i64;
            (
                matches * points,
                format!("{matches} of {count} {flower} mirrored in field {other_index} × {points}"),
            )
        }
        FlowerFieldsScoringRule::Majority { more, equal, fewer } => {
            let theirs = count_of(other, flower);
            let (each, comparison) = match count.cmp(&theirs) {
                std::cmp::Ordering::Greater => (more, "more"),
                std::cmp::Ordering::Equal => (equal, "equal"),
                std::cmp::Ordering::Less => (fewer, "fewer"),
            };
            (
                count * each,
                format!("{count} {flower} against {theirs} in field {other_index} ({comparison}) × {each}"),
            )
        }
        FlowerFieldsScoringRule::Edges { edge, corner } => {
            let corners = cells.iter().filter(|cell| cell.border_sides() == 2).count() as i64;
            let edges = cells.iter().filter(|cell| cell.border_sides() == 1).count() as i64;
            (
                edges * edge + corners * corner,
                format!("{edges} {flower} on an edge × {edge} + {corners} in a corner × {corner}"),
            )
        }
        FlowerFieldsScoringRule::PerFlower { points } => {
            (count * points, format!("{count} {flower} × {points}"))
        }
    };
    FlowerFieldsFlowerScore {
        flower,
        rule,
        count,
        points,
        why,
    }
}

pub fn field_score(
    state: &FlowerFieldsState,
    field_index: FieldIndex,
    other_index: FieldIndex,
) -> FlowerFieldsFieldScore {
    let empty = FieldState::empty();
    let field = state.field(field_index).unwrap_or(&empty);
    let other = state.field(other_index).unwrap_or(&empty);
    let flowers: Vec<FlowerFieldsFlowerScore> = FlowerFieldsFlower::PLANTABLE
        .into_iter()
        .filter_map(|flower| {
            state
                .scoring
                .rule_of(flower)
                .map(|rule| flower_score(field, other, other_index, flower, rule))
        })
        .collect();
    FlowerFieldsFieldScore {
        field: field_index,
        other_field: other_index,
        points: flowers.iter().map(|line| line.points).sum(),
        flowers,
    }
}

/// §7: score(clockwise, other = counterclockwise) + score(counterclockwise,
/// other = clockwise) − penalties. Uses only the seat's own two fields and
/// its own penalties and garnets, so it is safe to show to that seat.
pub fn seat_score(state: &FlowerFieldsState, seat: SeatIndex) -> FlowerFieldsSeatScore {
    let clockwise = clockwise_field(seat);
    let counterclockwise = counterclockwise_field(seat);
    let clockwise_score = field_score(state, clockwise, counterclockwise);
    let counterclockwise_score = field_score(state, counterclockwise, clockwise);
    let (penalties, garnets) = state
        .seat(seat)
        .map(|seat_state| (seat_state.penalties.clone(), seat_state.garnets))
        .unwrap_or_default();
    let penalty_points: i64 = penalties.iter().map(|penalty| penalty.points).sum();
    FlowerFieldsSeatScore {
        seat,
        total: clockwise_score.points + counterclockwise_score.points - penalty_points,
        clockwise: clockwise_score,
        counterclockwise: counterclockwise_score,
        penalties,
        penalty_points,
        garnets,
    }
}

pub fn final_totals(state: &FlowerFieldsState) -> Vec<i64> {
    all_seats()
        .map(|seat| seat_score(state, seat).total)
        .collect()
}

/// §4: for each type scored by `garnets` (white by default), the field(s)
/// with the most of it give each manager 3 per flower, every other field 1.
pub fn garnets_earned(state: &FlowerFieldsState) -> Vec<i64> {
    let mut earned = vec![0; usize::from(SEAT_COUNT)];
    for flower in FlowerFieldsFlower::PLANTABLE {
        if state.scoring.rule_of(flower) != Some(FlowerFieldsScoringRule::Garnets) {
            continue;
        }
        let counts: Vec<i64> = all_fields()
            .map(|field| {
                state
                    .field(field)
                    .map_or(0, |field_state| count_of(field_state, flower))
            })
            .collect();
        let most = counts.iter().copied().max().unwrap_or(0);
        for (field, count) in all_fields().zip(counts) {
            let per_flower = if count == most { 3 } else { 1 };
            for manager in managers(field) {
                if let Some(slot) = earned.get_mut(usize::from(manager.0)) {
                    *slot += per_flower * count;
                }
            }
        }
    }
    earned
}

/// §7: the highest total alone wins; the Elimination Candidate is the
/// lower of the two seats opposite the winner, or with no winner the lowest
/// total; ties list every tied seat.
pub fn result_for(totals: &[i64]) -> FlowerFieldsResult {
    let seat_total = |seat: SeatIndex| totals.get(usize::from(seat.0)).copied().unwrap_or(0);
    let highest = all_seats().map(seat_total).max().unwrap_or(0);
    let leaders: Vec<SeatIndex> = all_seats()
        .filter(|seat| seat_total(*seat) == highest)
        .collect();
    let winner = match leaders.as_slice() {
        [only] => Some(*only),
        _ => None,
    };
    let pool: Vec<SeatIndex> = match winner {
        Some(winner) => vec![
            SeatIndex((winner.0 + 2) % SEAT_COUNT),
            SeatIndex((winner.0 + 3) % SEAT_COUNT),
        ],
        None => all_seats().collect(),
    };
    let lowest = pool.iter().copied().map(seat_total).min().unwrap_or(0);
    let mut candidates: Vec<SeatIndex> = pool
        .into_iter()
        .filter(|seat| seat_total(*seat) == lowest)
        .collect();
    candidates.sort();
    let elimination_candidate = match candidates.as_slice() {
        [only] => Some(*only),
        _ => None,
    };
    FlowerFieldsResult {
        winner,
        candidates,
        elimination_candidate,
    }
}

pub fn score(state: &FlowerFieldsState, viewer: Viewer<SeatIndex>) -> FlowerFieldsScore {
    let seats: Vec<FlowerFieldsSeatScore> = all_seats()
        .filter(|seat| state.ended || viewer.sees_secrets_of(*seat))
        .map(|seat| seat_score(state, seat))
        .collect();
    FlowerFieldsScore {
        is_final: state.ended,
        seats,
        result: if state.ended {
            state.result.clone()
        } else {
            None
        },
    }
}

pub fn summary(state: &FlowerFieldsState) -> ScoreSummary {
    let totals = final_totals(state);
    let winners = if state.ended {
        result_for(&totals)
            .winner
            .map(|seat| vec![seat.name()])
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    ScoreSummary {
        totals: all_seats()
            .zip(totals)
            .map(|(seat, total)| (seat.name(), total))
            .collect(),
        winners,
        is_final: state.ended,
    }
}

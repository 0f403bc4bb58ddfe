//! Random legal games as archives, for tests and benchmarks.
//!
//! Everything is drawn from ChaCha seeded by the caller: game `i` of a run
//! with seed `s` is the same game whatever the thread count, so a benchmark
//! input can be regenerated instead of shipped.

use std::io::Write;
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use rand::seq::IndexedRandom;
use rand::Rng;
use serde_json::Value;
use umpire_domain::chain::GENESIS_HASH;
use umpire_domain::erased::event_type;
use umpire_domain::rng::{rng_from_seed, seed_from_random_bits};
use umpire_domain::{Actor, GameError, Registry};

use crate::format::{Archive, FORMAT, FORMAT_VERSION};
use umpire_domain::actor_label;
use umpire_domain::record::format_recorded_at;
use umpire_domain::record::RecordedRejection;
use umpire_domain::RecordedEvent;

/// How many actions a random game may take before it is cut off unfinished.
pub const DEFAULT_MAX_ACTIONS: usize = 5_000;

/// The recorded time of the first simulated game (times are synthetic, so
/// archives are reproducible byte for byte).
fn epoch() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
        .expect("a fixed valid time")
        .with_timezone(&Utc)
}

/// The seed of game `index` of a run: depends on the game's name too, so
/// runs of different games with one seed never share game ids or deals.
fn game_seed(game_name: &str, seed: u64, index: u64) -> u64 {
    // FNV-1a over the name: stable across releases, unlike std's hasher.
    let name_hash = game_name
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
    let mut rng = rng_from_seed(seed ^ name_hash ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    // Only seeds game creation and import accept: a simulated archive must
    // be one the service could have recorded.
    seed_from_random_bits(rng.random())
}

/// Builds a stored log with its hash chain, the way the store would.
struct LogBuilder {
    game_id: String,
    started: DateTime<Utc>,
    rules_version: u32,
    events: Vec<RecordedEvent>,
}

impl LogBuilder {
    fn now(&self) -> String {
        format_recorded_at(&(self.started + Duration::milliseconds(self.events.len() as i64)))
    }

    fn append(&mut self, actor: &str, action: &Value, payloads: Vec<Value>) {
        let decided_at = self.events.len() as u64;
        let recorded_at = self.now();
        let action = Arc::new(action.clone());
        for payload in payloads {
            let prev_hash = self
                .events
                .last()
                .map(|e| e.hash.clone())
                .unwrap_or_else(|| GENESIS_HASH.to_string());
            let mut event = RecordedEvent {
                seq: self.events.len() as u64 + 1,
                event_type: event_type(&payload).to_string(),
                payload,
                actor: actor.to_string(),
                action: Arc::clone(&action),
                decided_at,
                rules_version: self.rules_version,
                recorded_at: recorded_at.clone(),
                prev_hash,
                hash: String::new(),
                encoded: Default::default(),
            };
            event.hash = event.chain_link(&self.game_id).hash();
            self.events.push(event);
        }
    }
}

/// Game number `index` of a run: random legal play until the game ends or
/// `max_actions` actions were played. Now and then a seat that is not to act
/// tries an action, which is refused and recorded as a rejection.
pub fn simulate_one(
    registry: &Registry,
    game_name: &str,
    options: &Value,
    seed: u64,
    index: u64,
    max_actions: usize,
) -> Result<Archive, GameError> {
    let game = registry.get(game_name)?;
    let options = game.validate_options(options)?;
    let seats = game.seats(&options)?;
    let this_seed = game_seed(game.id(), seed, index);
    let mut rng = rng_from_seed(this_seed ^ 0x5eed_0fa1_c7e5);
    let mut id_bytes = [0u8; 16];
    rng.fill(&mut id_bytes);
    let game_id = uuid::Builder::from_random_bytes(id_bytes).into_uuid();
    let started = epoch() + Duration::seconds(index as i64);
    let mut log = LogBuilder {
        game_id: game_id.to_string(),
        started,
        rules_version: game.rules_version(),
        events: Vec::new(),
    };
    let mut state = game.new_match(&options)?;
    let setup = game.setup(&options, this_seed)?;
    for event in &setup {
        state.apply_json(event)?;
    }
    log.append("system", &Value::Null, setup);
    let mut rejections = Vec::new();
    for _ in 0..max_actions {
        let status = state.status();
        if status.finished {
            break;
        }
        let actor = match status.to_act.choose(&mut rng) {
            Some(seat) => Actor::Seat(seat.clone()),
            None => Actor::Umpire,
        };
        let mut legal = state.legal_actions(&actor)?;
        let mut actor = actor;
        if legal.is_empty() {
            actor = Actor::Umpire;
            legal = state.legal_actions(&actor)?;
        }
        let Some(action) = legal.choose(&mut rng).cloned() else {
            // Stuck: nobody has a legal action. Keep the game as it is.
            break;
        };
        if rng.random_bool(0.02) {
            // Someone out of turn tries the same move.
            let others: Vec<&String> = seats
                .iter()
                .filter(|seat| !status.to_act.contains(seat))
                .collect();
            if let Some(other) = others.choose(&mut rng) {
                let intruder = Actor::Seat((*other).clone());
                if let Err(GameError::Violation(violation)) = state.decide(&intruder, &action) {
                    rejections.push(RecordedRejection {
                        at_version: state.version(),
                        actor: actor_label::write(&intruder),
                        action: action.clone(),
                        code: violation.code.to_string(),
                        message: violation.message,
                        rule: Some(violation.rule.to_string()),
                        rules_version: game.rules_version(),
                        recorded_at: log.now(),
                        repeats: 1,
                    });
                }
            }
        }
        let events = state.decide(&actor, &action)?;
        for event in &events {
            state.apply_json(event)?;
        }
        log.append(&actor_label::write(&actor), &action, events);
    }
    Ok(Archive {
        format: FORMAT.to_string(),
        format_version: FORMAT_VERSION,
        game_id,
        game: game.id().to_string(),
        options,
        seed: this_seed,
        rules_version: game.rules_version(),
        created_at: started.to_rfc3339(),
        events: log.events,
        rejections,
    })
}

/// What `simulate_to` generates.
#[derive(Debug, Clone)]
pub struct SimulationRun<'a> {
    /// The games to play, `count` of each, one name after the other.
    pub games: &'a [&'a str],
    /// Options (a JSON value; `null` for the defaults).
    pub options: &'a Value,
    pub count: u64,
    pub seed: u64,
    pub max_actions: usize,
}

/// What a simulation run wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SimulationTotals {
    pub games: u64,
    /// Events in all the games' logs.
    pub events: u64,
    /// Bytes of JSON Lines written.
    pub bytes: u64,
    /// The threads that made at least one game: what the run used, not
    /// what it was given.
    pub threads: u64,
}

/// Writes `run.count` random games of each of `run.games` as JSON Lines.
/// Every game is its own task on rayon's pool, with a bounded number in
/// flight, and the lines are written in order (game by game, index by
/// index): the output is the same whatever the thread count, and no core
/// waits for the slowest game of a batch or for the next game's name.
/// `progress` is called once per game written.
pub fn simulate_to(
    registry: &Registry,
    run: &SimulationRun<'_>,
    out: &mut dyn Write,
    mut progress: impl FnMut(u64),
) -> std::io::Result<SimulationTotals> {
    let tasks = run
        .games
        .iter()
        .flat_map(|game| (0..run.count).map(move |index| (*game, index)));
    let mut totals = SimulationTotals::default();
    let mut threads = std::collections::HashSet::new();
    crate::pipeline::run_ordered(
        tasks,
        rayon::current_num_threads() * 4,
        |(game, index)| {
            simulate_one(
                registry,
                game,
                run.options,
                run.seed,
                index,
                run.max_actions,
            )
            .map(|archive| {
                let thread = std::thread::current().id();
                (archive.to_json_line(), archive.version(), thread)
            })
            .map_err(|error| std::io::Error::other(format!("simulating {game}: {error}")))
        },
        |simulated| {
            let (line, events, thread) = simulated?;
            threads.insert(thread);
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
            totals.games += 1;
            totals.events += events;
            totals.bytes += line.len() as u64 + 1;
            progress(1);
            Ok(())
        },
    )?;
    out.flush()?;
    totals.threads = threads.len() as u64;
    Ok(totals)
}

//! The clock over real games: who is due and since when, deadlines with the
//! reserve, pause, resume and extra time, and what the clock may record —
//! each given as a log with recorded times, checked against the deadlines
//! the clock derives from it (`docs/rules/clock.md`).

use chrono::{DateTime, Duration, TimeZone, Utc};
use serde_json::{json, Value};
use umpire_domain::clock::{self, Clock, ClockSettings, ClockStart};
use umpire_domain::record::format_recorded_at;
use umpire_domain::{actor_label, Actor, DynMatch, GameError, RecordedEvent};

/// A game on the table: its state, its clock, and the log they fold from.
struct Table {
    game: Box<dyn DynMatch>,
    clock: Option<Clock>,
    log: Vec<RecordedEvent>,
}

/// `seconds` after the game was created.
fn at(seconds: f64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 27, 10, 0, 0).unwrap()
        + Duration::microseconds((seconds * 1e6) as i64)
}

fn time(seconds: f64) -> String {
    format_recorded_at(&at(seconds))
}

impl Table {
    /// `game` created at second 0 with `options` and, if given, a clock.
    fn new(game: &str, options: Value, settings: Option<ClockSettings>) -> Table {
        let registry = umpire_games::registry();
        let rules = registry.get(game).unwrap();
        let options = rules.validate_options(&options).unwrap();
        let mut setup = rules.setup(&options, 7).unwrap();
        setup.extend(settings.map(ClockSettings::event));
        let mut table = Table {
            game: rules.new_match(&options).unwrap(),
            clock: None,
            log: Vec::new(),
        };
        table.record(0.0, actor_label::SYSTEM, Value::Null, setup);
        table
    }

    fn record(&mut self, seconds: f64, actor: &str, action: Value, events: Vec<Value>) {
        let action = std::sync::Arc::new(action);
        for payload in events {
            let event = RecordedEvent {
                seq: self.log.len() as u64 + 1,
                event_type: umpire_domain::erased::event_type(&payload).to_string(),
                payload,
                actor: actor.to_string(),
                action: action.clone(),
                decided_at: 0,
                rules_version: 1,
                recorded_at: time(seconds),
                prev_hash: String::new(),
                hash: String::new(),
                encoded: Default::default(),
            };
            self.game.apply_json(&event.payload).unwrap();
            clock::fold(&mut self.clock, &event, self.game.as_ref()).unwrap();
            self.log.push(event);
        }
    }

    /// `actor` (a log label) sends `action` at `seconds`: recorded if
    /// accepted, the refusal otherwise.
    fn act(&mut self, seconds: f64, actor: &str, action: Value) -> Result<(), GameError> {
        let decision = clock::decide(
            self.game.as_ref(),
            self.clock.as_ref(),
            actor,
            &action,
            at(seconds),
        )?;
        self.record(seconds, actor, action, decision.events);
        Ok(())
    }

    /// The clock's deadlines, as (seat, seconds after creation).
    fn deadlines(&self) -> Vec<(String, f64)> {
        self.clock
            .as_ref()
            .expect("a clocked game")
            .deadlines()
            .into_iter()
            .map(|deadline| {
                let seconds = (deadline.at - at(0.0)).num_microseconds().unwrap() as f64 / 1e6;
                (deadline.seat, seconds)
            })
            .collect()
    }

    fn refusal(&mut self, seconds: f64, actor: &str, action: Value) -> &'static str {
        match self.act(seconds, actor, action) {
            Err(GameError::Violation(violation)) => violation.code,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
}

fn due(seats: &[(&str, f64)]) -> Vec<(String, f64)> {
    seats
        .iter()
        .map(|(seat, seconds)| (seat.to_string(), *seconds))
        .collect()
}

/// A clock that runs from the game's creation (`"start": "now"`).
fn settings(per_move_s: u64, reserve_s: u64) -> Option<ClockSettings> {
    Some(ClockSettings {
        per_move_ms: per_move_s * 1000,
        reserve_ms: reserve_s * 1000,
        start: ClockStart::Now,
    })
}

/// A clock that waits for every seat to join (§5, the default).
fn waiting(per_move_s: u64) -> Option<ClockSettings> {
    Some(ClockSettings {
        per_move_ms: per_move_s * 1000,
        reserve_ms: 0,
        start: ClockStart::WhenSeated,
    })
}

const UMPIRE: &str = "umpire";

fn join() -> Value {
    json!({"type": "clock_join"})
}

fn clock_timeout(seat: &str, deadline_s: f64) -> Value {
    json!({"type": "timeout", "seat": seat, "deadline": time(deadline_s)})
}

const DARK: &str = "seat:dark";
const LIGHT: &str = "seat:light";

/// Treeblox, first turns: dark then light each place one leaf.
fn first_leaf(table: &mut Table, seconds: f64, actor: &str) {
    let seat = actor.strip_prefix("seat:").unwrap();
    let legal = table
        .game
        .legal_actions(&Actor::Seat(seat.to_string()))
        .unwrap();
    table.act(seconds, actor, legal[0].clone()).unwrap();
}

#[test]
fn a_game_without_a_clock_has_none_and_refuses_actions_on_it() {
    let mut table = Table::new("treeblox", Value::Null, None);
    assert!(table.clock.is_none());
    assert_eq!(
        table.refusal(
            1.0,
            actor_label::write(&Actor::<&str>::Umpire).as_str(),
            json!({"type": "clock_pause"})
        ),
        clock::NOT_CLOCKED.code
    );
    assert_eq!(
        table.refusal(1.0, actor_label::CLOCK, clock_timeout("dark", 0.5)),
        clock::NOT_CLOCKED.code
    );
}

#[test]
fn each_seat_is_due_from_the_moment_the_game_waits_for_it() {
    // Given treeblox with 10 s a move: dark is due from creation.
    let mut table = Table::new("treeblox", Value::Null, settings(10, 0));
    assert_eq!(table.deadlines(), due(&[("dark", 10.0)]));
    // When dark moves at 3 s, then light is due until 13 s, dark is not.
    first_leaf(&mut table, 3.0, DARK);
    assert_eq!(table.deadlines(), due(&[("light", 13.0)]));
    first_leaf(&mut table, 4.5, LIGHT);
    assert_eq!(table.deadlines(), due(&[("dark", 14.5)]));
}

#[test]
fn a_move_that_runs_over_spends_the_reserve_which_is_never_refilled() {
    // Given 10 s a move and a 5 s reserve: dark's first deadline is 15 s.
    let mut table = Table::new("treeblox", Value::Null, settings(10, 5));
    assert_eq!(table.deadlines(), due(&[("dark", 15.0)]));
    // When dark moves at 12 s, 2 s over: 3 s of reserve are left.
    first_leaf(&mut table, 12.0, DARK);
    first_leaf(&mut table, 13.0, LIGHT);
    assert_eq!(table.deadlines(), due(&[("dark", 13.0 + 10.0 + 3.0)]));
    let status = table.clock.as_ref().unwrap().status();
    assert_eq!(status.seats["dark"].reserve_left_ms, 3000);
    assert_eq!(status.seats["light"].reserve_left_ms, 5000);
    // A quick move leaves the reserve as it was.
    let pass_free = table
        .game
        .legal_actions(&Actor::Seat("dark".into()))
        .unwrap();
    table.act(14.0, DARK, pass_free[0].clone()).unwrap();
    assert_eq!(
        table.clock.as_ref().unwrap().status().seats["dark"].reserve_left_ms,
        3000
    );
}

#[test]
fn the_clock_times_out_a_due_seat_at_its_deadline_and_not_before() {
    let mut table = Table::new("treeblox", Value::Null, settings(10, 0));
    // Refused: before the deadline, another deadline, a seat not due.
    assert_eq!(
        table.refusal(9.9, actor_label::CLOCK, clock_timeout("dark", 10.0)),
        clock::EARLY.code
    );
    assert_eq!(
        table.refusal(11.0, actor_label::CLOCK, clock_timeout("dark", 9.0)),
        clock::WRONG_DEADLINE.code
    );
    assert_eq!(
        table.refusal(11.0, actor_label::CLOCK, clock_timeout("light", 10.0)),
        clock::SEAT_NOT_DUE.code
    );
    // Only the clock names a deadline.
    assert_eq!(
        table.refusal(11.0, "umpire", clock_timeout("dark", 10.0)),
        clock::NOT_THE_CLOCK.code
    );
    assert_eq!(table.log.len(), 2, "nothing refused is recorded");
    // Accepted at the deadline: the game's own timeout, decided by its rules.
    table
        .act(10.0, actor_label::CLOCK, clock_timeout("dark", 10.0))
        .unwrap();
    let recorded: Vec<&RecordedEvent> = table.log[2..].iter().collect();
    assert!(recorded.iter().all(|event| event.actor == "clock"));
    assert_eq!(recorded[0].action["deadline"], time(10.0));
    assert_eq!(recorded[0].payload["type"], "turn_passed");
    assert_eq!(recorded[0].payload["timed_out"], true);
    assert_eq!(table.deadlines(), due(&[("light", 10.0 + 10.0)]));
}

#[test]
fn pausing_stops_every_deadline_and_resuming_gives_back_the_time_left() {
    let mut table = Table::new("treeblox", Value::Null, settings(10, 0));
    table
        .act(4.0, "umpire", json!({"type": "clock_pause"}))
        .unwrap();
    assert_eq!(table.deadlines(), due(&[]));
    let status = table.clock.as_ref().unwrap().status();
    assert_eq!(status.paused_since, Some(time(4.0)));
    assert_eq!(status.seats["dark"].left_ms, Some(6000));
    assert_eq!(status.seats["dark"].deadline, None);
    assert_eq!(
        table.refusal(50.0, actor_label::CLOCK, clock_timeout("dark", 10.0)),
        clock::SEAT_NOT_DUE.code
    );
    assert_eq!(
        table.refusal(60.0, "umpire", json!({"type": "clock_pause"})),
        clock::ALREADY_PAUSED.code
    );
    table
        .act(100.0, "umpire", json!({"type": "clock_resume"}))
        .unwrap();
    assert_eq!(table.deadlines(), due(&[("dark", 106.0)]));
    assert_eq!(
        table.refusal(101.0, "umpire", json!({"type": "clock_resume"})),
        clock::NOT_PAUSED.code
    );
}

#[test]
fn a_move_made_while_paused_counts_only_the_time_before_the_pause() {
    // 10 s a move, 5 s reserve: dark has used 12 s when the clock pauses.
    let mut table = Table::new("treeblox", Value::Null, settings(10, 5));
    table
        .act(12.0, "umpire", json!({"type": "clock_pause"}))
        .unwrap();
    first_leaf(&mut table, 40.0, DARK);
    table
        .act(50.0, "umpire", json!({"type": "clock_resume"}))
        .unwrap();
    // Light became due during the pause: its time starts at the resume.
    assert_eq!(table.deadlines(), due(&[("light", 65.0)]));
    assert_eq!(
        table.clock.as_ref().unwrap().status().seats["dark"].reserve_left_ms,
        3000
    );
}

#[test]
fn extra_time_goes_to_the_seats_reserve() {
    let mut table = Table::new("treeblox", Value::Null, settings(10, 0));
    table
        .act(
            2.0,
            "umpire",
            json!({"type": "clock_add_time", "seat": "dark", "ms": 5000}),
        )
        .unwrap();
    assert_eq!(table.deadlines(), due(&[("dark", 15.0)]));
    // Given to a seat not due, it waits for that seat's next move.
    table
        .act(
            3.0,
            "umpire",
            json!({"type": "clock_add_time", "seat": "light", "ms": 1000}),
        )
        .unwrap();
    first_leaf(&mut table, 4.0, DARK);
    assert_eq!(table.deadlines(), due(&[("light", 15.0)]));
    // Refused: a seat the game does not have, no time, and from a seat.
    assert_eq!(
        table.refusal(
            5.0,
            "umpire",
            json!({"type": "clock_add_time", "seat": "green", "ms": 1})
        ),
        clock::UNKNOWN_SEAT.code
    );
    assert_eq!(
        table.refusal(
            5.0,
            "umpire",
            json!({"type": "clock_add_time", "seat": "dark", "ms": 0})
        ),
        clock::INVALID_TIME.code
    );
    assert_eq!(
        table.refusal(
            5.0,
            LIGHT,
            json!({"type": "clock_add_time", "seat": "light", "ms": 9000})
        ),
        clock::UMPIRE_ONLY.code
    );
}

#[test]
fn simultaneous_phases_run_every_due_seats_clock_at_once() {
    // Flower Fields: all five seats submit at once from setup.
    let mut table = Table::new("flower_fields", Value::Null, settings(30, 0));
    let everyone: Vec<(String, f64)> = (0..5).map(|seat| (seat.to_string(), 30.0)).collect();
    assert_eq!(table.deadlines(), everyone);
    let submit = table.game.legal_actions(&Actor::Seat("2".into())).unwrap();
    table.act(7.0, "seat:2", submit[0].clone()).unwrap();
    let others: Vec<(String, f64)> = [0, 1, 3, 4]
        .iter()
        .map(|seat| (seat.to_string(), 30.0))
        .collect();
    assert_eq!(table.deadlines(), others);
    // The umpire's `close_round` times every pending seat out: each is
    // due again in the next round, from then, with a fresh time per move.
    table
        .act(31.0, "umpire", json!({"type": "close_round"}))
        .unwrap();
    let next_round: Vec<(String, f64)> = (0..5).map(|seat| (seat.to_string(), 61.0)).collect();
    assert_eq!(table.deadlines(), next_round);
}

#[test]
fn a_seat_due_again_after_its_own_move_starts_a_new_move() {
    // Draft & Cider alone: the one seat picks every card.
    let mut table = Table::new("draft_cider", json!({"players": 1}), settings(10, 0));
    let deadline_before = table.deadlines();
    assert_eq!(deadline_before.len(), 1);
    let pick = table.game.legal_actions(&Actor::Seat("0".into())).unwrap();
    table.act(8.0, "seat:0", pick[0].clone()).unwrap();
    assert_eq!(table.deadlines(), due(&[("0", 18.0)]));
}

#[test]
fn a_seat_the_rules_allow_no_timeout_for_is_not_on_the_clock() {
    // Arboretum: while the start is chosen the rules refuse every timeout
    // (`arboretum.wrong_phase`), so the clock does not run for the chooser.
    let mut table = Table::new("arboretum", Value::Null, settings(10, 0));
    assert_eq!(table.game.status().to_act, vec!["red".to_string()]);
    assert_eq!(table.deadlines(), due(&[]));
    table
        .act(
            25.0,
            "seat:red",
            json!({"type": "choose_start", "seat": "blue"}),
        )
        .unwrap();
    assert_eq!(table.deadlines(), due(&[("blue", 35.0), ("red", 35.0)]));
}

#[test]
fn clock_settings_out_of_range_are_refused() {
    for (per_move_ms, reserve_ms) in [
        (0, 0),
        (99, 0),
        (clock::MAX_CLOCK_MS + 1, 0),
        (1000, clock::MAX_CLOCK_MS + 1),
    ] {
        let refused = ClockSettings {
            per_move_ms,
            reserve_ms,
            start: ClockStart::Now,
        }
        .validate()
        .unwrap_err();
        assert_eq!(refused.code, clock::INVALID_TIME.code);
    }
    assert!(ClockSettings {
        per_move_ms: 100,
        reserve_ms: clock::MAX_CLOCK_MS,
        start: ClockStart::WhenSeated,
    }
    .validate()
    .is_ok());
    // As a request asks: any integer, a negative one or one past 64 bits
    // refused by the same rule.
    for (per_move_ms, reserve_ms, named) in [
        (-1, 0, -1),
        (1000, -1, -1),
        (i128::from(u64::MAX) + 1, 0, i128::from(u64::MAX) + 1),
        (1000, i128::MIN, i128::MIN),
    ] {
        let refused = clock::RequestedClock {
            per_move_ms,
            reserve_ms,
            start: ClockStart::Now,
        }
        .validate()
        .unwrap_err();
        assert_eq!(refused.code, clock::INVALID_TIME.code);
        assert!(
            refused.message.contains(&format!(" {named} ms")),
            "{refused:?}"
        );
    }
}

#[test]
fn a_reserve_grown_past_any_calendar_gives_the_end_of_time_not_a_panic() {
    // The umpire's extra time, given again and again, adds up: folded from
    // a log holding it (the sum of validated additions can grow so far).
    let mut table = Table::new("treeblox", Value::Null, settings(10, 0));
    for _ in 0..2 {
        table.record(
            1.0,
            "umpire",
            json!({"type": "clock_add_time", "seat": "dark", "ms": 1}),
            vec![json!({"type": "clock_time_added", "seat": "dark", "ms": u64::MAX})],
        );
    }
    let clock = table.clock.as_ref().unwrap();
    assert_eq!(clock.deadlines()[0].at, DateTime::<Utc>::MAX_UTC);
    assert_eq!(clock.status().seats["dark"].reserve_left_ms, u64::MAX);
    assert!(clock.status().seats["dark"].deadline.is_some());
}

#[test]
fn every_seat_of_every_game_is_in_the_clocks_status_with_its_reserve_from_the_start() {
    for (game, options) in [
        ("arboretum", Value::Null),
        ("treeblox", Value::Null),
        ("draft_cider", json!({"players": 4})),
        ("flower_fields", Value::Null),
    ] {
        let table = Table::new(game, options, settings(10, 7));
        let status = table.clock.as_ref().unwrap().status();
        let shown: Vec<&String> = status.seats.keys().collect();
        let mut seats: Vec<&String> = table.game.seats().iter().collect();
        seats.sort();
        assert_eq!(shown, seats, "{game}: every seat, due or not");
        for (seat, clock) in &status.seats {
            assert_eq!(clock.reserve_left_ms, 7000, "{game} {seat}");
        }
    }
}

#[test]
fn a_flower_fields_replacement_does_not_start_a_new_move() {
    // Every seat submits at once, 30 s a move and 20 s of reserve; seat 2
    // may replace a piece (3 garnets).
    let options = json!({"piece_replacement": true, "starting_garnets": 9});
    let mut table = Table::new("flower_fields", options, settings(30, 20));
    let everyone: Vec<(String, f64)> = (0..5).map(|seat| (seat.to_string(), 50.0)).collect();
    assert_eq!(table.deadlines(), everyone);
    let replace = |table: &Table| {
        table
            .game
            .legal_actions(&Actor::Seat("2".into()))
            .unwrap()
            .into_iter()
            .find(|action| action["type"] == "replace_piece")
            .expect("a replacement is legal")
    };
    // Seat 2 replaces a piece at 35 s, 5 s into its reserve, then again.
    table.act(35.0, "seat:2", replace(&table)).unwrap();
    table.act(45.0, "seat:2", replace(&table)).unwrap();
    // Its move runs on: the same deadline, the reserve not yet charged.
    assert_eq!(table.deadlines(), everyone);
    let status = table.clock.as_ref().unwrap().status();
    assert_eq!(status.seats["2"].reserve_left_ms, 20_000);
    assert_eq!(status.seats["2"].due_since, Some(time(0.0)));
    // Its submission ends the move: 18 s over its time per move.
    let submit = table.game.legal_actions(&Actor::Seat("2".into())).unwrap();
    table.act(48.0, "seat:2", submit[0].clone()).unwrap();
    let status = table.clock.as_ref().unwrap().status();
    assert_eq!(status.seats["2"].reserve_left_ms, 2_000);
}

#[test]
fn a_deadline_passed_before_a_pause_stands_and_the_seat_is_timed_out_while_paused() {
    // Given 10 s a move and no reserve: dark's deadline is 10 s. The
    // umpire pauses at 12 s, before the clock's timeout is recorded.
    let mut table = Table::new("treeblox", Value::Null, settings(10, 0));
    table
        .act(12.0, "umpire", json!({"type": "clock_pause"}))
        .unwrap();
    // The pause stops no time that had already run out: dark's deadline
    // stands, shown with nothing left.
    assert_eq!(table.deadlines(), due(&[("dark", 10.0)]));
    let status = table.clock.as_ref().unwrap().status();
    assert_eq!(status.seats["dark"].deadline, Some(time(10.0)));
    assert_eq!(status.seats["dark"].left_ms, Some(0));
    // The clock times dark out while paused, naming that deadline; light,
    // due from then, has its whole time per move at the resume.
    table
        .act(12.5, actor_label::CLOCK, clock_timeout("dark", 10.0))
        .unwrap();
    assert_eq!(table.deadlines(), due(&[]));
    let status = table.clock.as_ref().unwrap().status();
    assert_eq!(status.seats["light"].left_ms, Some(10_000));
    assert_eq!(status.seats["dark"].reserve_left_ms, 0);
    table
        .act(30.0, "umpire", json!({"type": "clock_resume"}))
        .unwrap();
    assert_eq!(table.deadlines(), due(&[("light", 40.0)]));
}

#[test]
fn a_deadline_passed_before_a_pause_is_not_moved_by_the_resume() {
    let mut table = Table::new("treeblox", Value::Null, settings(10, 0));
    table
        .act(12.0, "umpire", json!({"type": "clock_pause"}))
        .unwrap();
    table
        .act(30.0, "umpire", json!({"type": "clock_resume"}))
        .unwrap();
    // Not 10 s + the 18 s paused: the timeout is owed from 10 s.
    assert_eq!(table.deadlines(), due(&[("dark", 10.0)]));
    assert_eq!(
        table.refusal(30.5, actor_label::CLOCK, clock_timeout("dark", 28.0)),
        clock::WRONG_DEADLINE.code
    );
    table
        .act(30.5, actor_label::CLOCK, clock_timeout("dark", 10.0))
        .unwrap();
}

#[test]
fn extra_time_given_during_the_pause_counts_from_the_passed_deadline() {
    let mut table = Table::new("treeblox", Value::Null, settings(10, 0));
    table
        .act(12.0, "umpire", json!({"type": "clock_pause"}))
        .unwrap();
    // 5 s more: dark's deadline is 15 s, after the pause began, so it
    // waits for the resume with the 3 s left at the pause.
    table
        .act(
            20.0,
            "umpire",
            json!({"type": "clock_add_time", "seat": "dark", "ms": 5000}),
        )
        .unwrap();
    assert_eq!(table.deadlines(), due(&[]));
    let status = table.clock.as_ref().unwrap().status();
    assert_eq!(status.seats["dark"].left_ms, Some(3000));
    assert_eq!(status.seats["dark"].deadline, None);
    table
        .act(30.0, "umpire", json!({"type": "clock_resume"}))
        .unwrap();
    assert_eq!(table.deadlines(), due(&[("dark", 33.0)]));
}

#[test]
fn a_clock_that_waits_runs_no_time_until_every_seat_has_joined() {
    // Given treeblox with 10 s a move, waiting for its seats.
    let mut table = Table::new("treeblox", Value::Null, waiting(10));
    let status = table.clock.as_ref().unwrap().status();
    assert_eq!(
        status.waiting_for,
        Some(vec!["dark".to_string(), "light".to_string()])
    );
    assert!(status.paused_since.is_none(), "waiting is not a pause");
    assert_eq!(table.deadlines(), due(&[]));
    // When dark joins at 30 s: still no time runs; the clock cannot time
    // dark out however late it is.
    table.act(30.0, DARK, join()).unwrap();
    assert_eq!(table.deadlines(), due(&[]));
    assert_eq!(
        table.refusal(500.0, actor_label::CLOCK, clock_timeout("dark", 10.0)),
        clock::SEAT_NOT_DUE.code
    );
    // When light joins at 50 s, the last: the clock starts then, recorded
    // in the same decision, and dark has its whole 10 s from 50 s.
    table.act(50.0, LIGHT, join()).unwrap();
    let types: Vec<&str> = table.log[table.log.len() - 2..]
        .iter()
        .map(|event| event.event_type.as_str())
        .collect();
    assert_eq!(types, ["clock_seat_joined", "clock_started"]);
    assert_eq!(table.deadlines(), due(&[("dark", 60.0)]));
    assert_eq!(table.clock.as_ref().unwrap().status().waiting_for, None);
}

#[test]
fn seats_may_move_before_the_clock_starts_untimed() {
    let mut table = Table::new("treeblox", Value::Null, waiting(10));
    table.act(1.0, DARK, join()).unwrap();
    // Dark moves at 40 s, long past a time per move: nothing is owed.
    first_leaf(&mut table, 40.0, DARK);
    assert_eq!(table.deadlines(), due(&[]));
    table.act(45.0, LIGHT, join()).unwrap();
    // Light, due since dark's move, has all its time from the start.
    assert_eq!(table.deadlines(), due(&[("light", 55.0)]));
    assert_eq!(
        table.clock.as_ref().unwrap().status().seats["dark"].reserve_left_ms,
        0
    );
}

#[test]
fn the_umpire_may_start_a_clock_that_waits_and_only_once() {
    let mut table = Table::new("treeblox", Value::Null, waiting(10));
    table.act(5.0, DARK, join()).unwrap();
    table
        .act(20.0, UMPIRE, json!({"type": "clock_start"}))
        .unwrap();
    assert_eq!(table.log.last().unwrap().event_type, "clock_started");
    assert_eq!(table.deadlines(), due(&[("dark", 30.0)]));
    // Refused: a second start, and a join once the clock runs.
    assert_eq!(
        table.refusal(21.0, UMPIRE, json!({"type": "clock_start"})),
        clock::ALREADY_STARTED.code
    );
    assert_eq!(
        table.refusal(22.0, LIGHT, join()),
        clock::ALREADY_STARTED.code
    );
}

#[test]
fn joining_and_starting_are_refused_to_the_wrong_actor_and_twice() {
    let mut table = Table::new("treeblox", Value::Null, waiting(10));
    table.act(1.0, DARK, join()).unwrap();
    // Refused: dark twice, the umpire joining, a seat starting the clock,
    // a pause or resume before the start.
    assert_eq!(table.refusal(2.0, DARK, join()), clock::ALREADY_JOINED.code);
    assert_eq!(table.refusal(2.0, UMPIRE, join()), clock::SEATS_JOIN.code);
    assert_eq!(
        table.refusal(2.0, LIGHT, json!({"type": "clock_start"})),
        clock::UMPIRE_ONLY.code
    );
    assert_eq!(
        table.refusal(2.0, UMPIRE, json!({"type": "clock_pause"})),
        clock::NOT_STARTED.code
    );
    assert_eq!(
        table.refusal(2.0, UMPIRE, json!({"type": "clock_resume"})),
        clock::NOT_STARTED.code
    );
    // Extra time may be given before the start: it waits in the reserve.
    table
        .act(
            3.0,
            UMPIRE,
            json!({"type": "clock_add_time", "seat": "light", "ms": 4000}),
        )
        .unwrap();
    table.act(6.0, LIGHT, join()).unwrap();
    assert_eq!(table.deadlines(), due(&[("dark", 16.0)]));
    // A clock without waiting was never waiting: joining it is refused.
    let mut running = Table::new("treeblox", Value::Null, settings(10, 0));
    assert_eq!(
        running.refusal(1.0, DARK, join()),
        clock::ALREADY_STARTED.code
    );
    let mut unclocked = Table::new("treeblox", Value::Null, None);
    assert_eq!(
        unclocked.refusal(1.0, DARK, join()),
        clock::NOT_CLOCKED.code
    );
}

#[test]
fn a_clock_set_without_start_runs_from_the_setup_as_logs_before_waiting_did() {
    // A log written before clocks waited: `clock_set` has no `start`.
    let mut table = Table::new("treeblox", Value::Null, None);
    table.record(
        0.0,
        actor_label::SYSTEM,
        Value::Null,
        vec![json!({"type": "clock_set", "per_move_ms": 10000, "reserve_ms": 0})],
    );
    assert_eq!(table.deadlines(), due(&[("dark", 10.0)]));
    // And a clock that starts now writes no `start`: such logs read as before.
    assert_eq!(
        settings(10, 0).unwrap().event(),
        json!({"type": "clock_set", "per_move_ms": 10000, "reserve_ms": 0})
    );
}

#[test]
fn every_game_waits_for_all_its_seats() {
    // Draft & Cider with three seats: the clock starts with the third join.
    let mut table = Table::new("draft_cider", json!({"players": 3}), waiting(10));
    table.act(1.0, "seat:0", join()).unwrap();
    table.act(2.0, "seat:2", join()).unwrap();
    assert_eq!(
        table.clock.as_ref().unwrap().status().waiting_for,
        Some(vec!["1".to_string()])
    );
    assert!(table.deadlines().is_empty());
    table.act(3.0, "seat:1", join()).unwrap();
    assert!(!table.deadlines().is_empty());
}

//! What an import refuses besides a log that does not replay: a nil game id,
//! times no clock could have written (running backwards, or in the future
//! beyond the skew allowed), and more rejections than a game keeps.

use chrono::{DateTime, TimeDelta, Utc};
use umpire_archive::import::MAX_CLOCK_SKEW;
use umpire_archive::{
    validate_for_import, Archive, Cause, ImportRefusal, RejectionFault, RejectionPolicy,
};
use umpire_domain::record::{format_recorded_at, RecordedRejection};

use crate::support::{first_action_seq, rechain, refusal, registry, simulated};

const POLICY: RejectionPolicy = RejectionPolicy {
    kept_per_version: 32,
    kept_per_game: 10_000,
    not_kept_code: "refusals_not_kept",
};

fn time(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().to_utc()
}

/// The importer's clock in these tests: well after the simulated games.
fn now() -> DateTime<Utc> {
    time("2026-06-01T00:00:00Z")
}

fn validate(archive: &Archive) -> Result<(), ImportRefusal> {
    validate_for_import(&registry(), archive, &POLICY, now()).map(|_| ())
}

fn log_cause(archive: &Archive) -> (u64, Cause) {
    match validate(archive) {
        Err(ImportRefusal::Log(divergence)) => (divergence.seq, divergence.cause),
        other => panic!("expected a log refusal, got {other:?}"),
    }
}

fn rejection_fault(archive: &Archive) -> (usize, RejectionFault) {
    match validate(archive) {
        Err(ImportRefusal::Rejection(invalid)) => (invalid.index, invalid.fault),
        other => panic!("expected a rejection refusal, got {other:?}"),
    }
}

#[test]
fn a_simulated_game_is_accepted_as_it_is() {
    assert_eq!(validate(&simulated("arboretum", 1)), Ok(()));
}

#[test]
fn the_nil_game_id_is_refused() {
    let mut archive = simulated("arboretum", 1);
    archive.game_id = uuid::Uuid::nil();
    rechain(&mut archive);
    assert_eq!(log_cause(&archive), (0, Cause::NilGameId));
}

/// Seeds past 2^63 - 1 are refused: creation never draws one, and the
/// store would keep it as another (a negative BIGINT). The largest is kept.
#[test]
fn a_seed_past_the_range_games_are_created_with_is_refused() {
    let mut archive = simulated("arboretum", 1);
    archive.seed = umpire_domain::rng::MAX_SEED + 1;
    assert_eq!(log_cause(&archive), (0, Cause::SeedOutOfRange));
    archive.seed = u64::MAX;
    assert_eq!(log_cause(&archive), (0, Cause::SeedOutOfRange));
}

#[test]
fn times_may_repeat_but_never_run_backwards() {
    let mut archive = simulated("arboretum", 1);
    let seq = first_action_seq(&archive);
    // Equal to the event before: two events recorded in the same microsecond.
    archive.events[seq - 1].recorded_at = archive.events[seq - 2].recorded_at.clone();
    rechain(&mut archive);
    assert_eq!(validate(&archive), Ok(()));

    let earlier = time(&archive.events[seq - 2].recorded_at) - TimeDelta::microseconds(1);
    archive.events[seq - 1].recorded_at = format_recorded_at(&earlier);
    rechain(&mut archive);
    assert_eq!(log_cause(&archive), (seq as u64, Cause::TimeRunsBackwards));
}

#[test]
fn an_event_time_past_the_clock_by_more_than_the_skew_is_refused() {
    let last = |archive: &mut Archive, at: DateTime<Utc>| {
        archive.events.last_mut().unwrap().recorded_at = format_recorded_at(&at);
        rechain(archive);
    };
    let mut archive = simulated("arboretum", 1);
    last(&mut archive, now() + MAX_CLOCK_SKEW);
    assert_eq!(validate(&archive), Ok(()), "within the skew");
    last(
        &mut archive,
        now() + MAX_CLOCK_SKEW + TimeDelta::microseconds(1),
    );
    assert_eq!(
        log_cause(&archive),
        (archive.version(), Cause::TimeInFuture)
    );
    last(&mut archive, time("2999-01-01T00:00:00Z"));
    assert_eq!(
        log_cause(&archive),
        (archive.version(), Cause::TimeInFuture)
    );
}

#[test]
fn a_rejection_time_past_the_clock_by_more_than_the_skew_is_refused() {
    let mut archive = simulated("arboretum", 1);
    archive.rejections.clear();
    // Rejections are kept in audit order, not time order: an earlier time
    // after a later one is fine.
    for (n, at) in [now(), now() - TimeDelta::days(30), now() + MAX_CLOCK_SKEW]
        .into_iter()
        .enumerate()
    {
        let mut rejection = refusal(&archive, "seat:red", archive.version(), n as u64);
        rejection.recorded_at = at.to_rfc3339();
        archive.rejections.push(rejection);
    }
    assert_eq!(validate(&archive), Ok(()));
    let mut late = refusal(&archive, "seat:red", archive.version(), 9);
    late.recorded_at = "2999-01-01T00:00:00+00:00".into();
    archive.rejections.push(late);
    assert_eq!(rejection_fault(&archive), (3, RejectionFault::TimeInFuture));
}

#[test]
fn a_game_holds_at_most_the_store_s_rejections_per_game() {
    let mut archive = simulated("arboretum", 1);
    let actors = ["seat:red", "seat:blue", "umpire"];
    let per_version = POLICY.kept_per_version;
    let room = (archive.version() - 1) * actors.len() as u64 * per_version;
    assert!(room > POLICY.kept_per_game, "the game is long enough");
    let at_cap: Vec<RecordedRejection> = (0..POLICY.kept_per_game)
        .map(|n| {
            let slot = n / per_version;
            let actor = actors[(slot % actors.len() as u64) as usize];
            let version = 1 + slot / actors.len() as u64;
            refusal(&archive, actor, version, n % per_version)
        })
        .collect();
    archive.rejections = at_cap;
    assert_eq!(validate(&archive), Ok(()));
    let one_more = refusal(&archive, "seat:red", archive.version(), 0);
    archive.rejections.push(one_more);
    assert_eq!(
        rejection_fault(&archive),
        (POLICY.kept_per_game as usize, RejectionFault::OverGameCap)
    );
}

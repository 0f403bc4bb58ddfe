//! JSON written piece by piece, byte for byte as serde_json writes it, on
//! the paths that write it most (a live stream writes an event's fields and
//! the status after it once for each event it delivers): through serde's
//! derives they cost several times as much. Each has a test
//! holding it to serde's output.

use umpire_domain::chain::needs_escaping;
use umpire_domain::StatusJson;

/// `text` as a JSON string, as serde_json writes it: quoted as it is when
/// nothing in it needs escaping, as most of a stream event's strings do not.
pub(crate) fn json_string(out: &mut String, text: &str) -> Result<(), serde_json::Error> {
    if needs_escaping(text.as_bytes()) {
        out.push_str(&serde_json::to_string(text)?);
    } else {
        out.push('"');
        out.push_str(text);
        out.push('"');
    }
    Ok(())
}

/// The JSON of `status`, as serde_json writes it, piece by piece: written
/// once for each event a live stream delivers, where serde's derive cost
/// several times as much. A status with a clock, rarer and larger, is
/// written by serde.
pub(crate) fn status_json(status: &StatusJson) -> Result<String, serde_json::Error> {
    if status.clock.is_some() {
        return serde_json::to_string(status);
    }
    let mut out = String::with_capacity(48 + status.phase.len() + 8 * status.to_act.len());
    out.push_str("{\"phase\":");
    json_string(&mut out, &status.phase)?;
    out.push_str(if status.finished {
        ",\"finished\":true,\"to_act\":["
    } else {
        ",\"finished\":false,\"to_act\":["
    });
    for (index, seat) in status.to_act.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        json_string(&mut out, seat)?;
    }
    out.push_str("]}");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Given statuses with and without seats to act, finished or not, with
    /// names that need escaping and with a clock, the status's JSON is
    /// what serde_json writes of it.
    #[test]
    fn a_status_is_written_as_serde_writes_it() {
        use umpire_domain::clock::{ClockStatus, SeatClockStatus};
        let clock = ClockStatus {
            per_move_ms: 30_000,
            reserve_ms: 600_000,
            paused_since: None,
            waiting_for: None,
            seats: [(
                "red".to_string(),
                SeatClockStatus {
                    reserve_left_ms: 500_000,
                    due_since: Some("2026-11-27T10:00:00.000000Z".into()),
                    deadline: Some("2026-11-27T10:06:00.000000Z".into()),
                    left_ms: None,
                },
            )]
            .into(),
        };
        let mut statuses = Vec::new();
        for finished in [false, true] {
            for to_act in [
                vec![],
                vec!["red".to_string()],
                vec!["0".into(), "1".into(), "a\"b\\\n".into()],
            ] {
                for phase in ["growth", "sc\u{e9}ne \"2\"\t"] {
                    statuses.push(StatusJson {
                        phase: phase.into(),
                        finished,
                        to_act: to_act.clone(),
                        clock: None,
                    });
                }
            }
        }
        let mut clocked = statuses[3].clone();
        clocked.clock = Some(clock);
        statuses.push(clocked);
        for status in &statuses {
            assert_eq!(
                status_json(status).unwrap(),
                serde_json::to_string(status).unwrap()
            );
        }
    }
}

//! The answer to an accepted action ([`ActionAccepted`]), written as JSON
//! piece by piece: its events as the submitter may see them, the payloads
//! and actions the append encoded written as they are. Through serde's
//! derive (an [`crate::model::EventEnvelope`] made of copies of each
//! event's strings, then written field by field) it cost a tenth of the
//! action path (docs/load.md). A test holds the two to the same bytes.

use umpire_domain::erased::DecodedEvent;
use umpire_domain::StatusJson;
use umpire_domain::{DynMatch, RecordedEvent, Viewer};

use super::events_json::{write_events, writing};
use super::json_text::json_string;
use crate::error::ServiceError;
#[cfg(doc)]
use crate::model::ActionAccepted;
use crate::model::ActionAcceptedJson;

/// The [`ActionAccepted`] of `game` at `version` after `events`, as
/// `viewer` is shown them judged against the state `now`, with `status`.
/// `decoded` holds the first events in their game's type where the caller
/// has them (see [`super::envelopes`]).
pub(crate) fn accepted_json<'a>(
    game: &str,
    version: u64,
    now: &dyn DynMatch,
    events: impl IntoIterator<Item = &'a RecordedEvent>,
    decoded: &[DecodedEvent],
    viewer: &Viewer<String>,
    status: &StatusJson,
) -> Result<ActionAcceptedJson, ServiceError> {
    let mut answer = Answer::new(game, version)?;
    write_events(&mut answer.out, now, events, decoded, viewer, WHAT)?;
    answer.end(status)
}

const WHAT: &str = "an action's answer";

/// An answer being written.
struct Answer {
    out: String,
}

impl Answer {
    fn new(game: &str, version: u64) -> Result<Answer, ServiceError> {
        let mut out = String::with_capacity(1024);
        out.push_str("{\"game\":");
        json_string(&mut out, game).map_err(writing(WHAT))?;
        out.push_str(",\"version\":");
        out.push_str(itoa::Buffer::new().format(version));
        out.push_str(",\"events\":");
        Ok(Answer { out })
    }

    fn end(mut self, status: &StatusJson) -> Result<ActionAcceptedJson, ServiceError> {
        self.out.push_str(",\"status\":");
        let status = serde_json::to_string(status).map_err(writing(WHAT))?;
        self.out.push_str(&status);
        self.out.push('}');
        Ok(ActionAcceptedJson(self.out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ActionAccepted;
    use crate::projection::events_json::write_event;
    use crate::projection::shown::sample_shown_events;

    /// Given events as a viewer is shown them (whole, as the append encoded
    /// them, hidden, with escapes, redacted), the answer written piece by
    /// piece is serde's of the same [`ActionAccepted`].
    #[test]
    fn an_answer_is_written_as_serde_writes_its_action_accepted() {
        let status = StatusJson {
            phase: "growth".into(),
            finished: false,
            to_act: vec!["dark".into()],
            clock: None,
        };
        sample_shown_events(|shown| {
            for count in [0, 1, shown.len()] {
                let mut answer = Answer::new("treeblox", 41).unwrap();
                answer.out.push('[');
                for (index, event) in shown[..count].iter().enumerate() {
                    if index > 0 {
                        answer.out.push(',');
                    }
                    write_event(&mut answer.out, event, WHAT).unwrap();
                }
                answer.out.push(']');
                let written = answer.end(&status).unwrap().0;
                let accepted = ActionAccepted {
                    game: "treeblox".into(),
                    version: 41,
                    events: shown[..count]
                        .iter()
                        .map(|event| event.clone().into_envelope())
                        .collect(),
                    status: status.clone(),
                };
                assert_eq!(written, serde_json::to_string(&accepted).unwrap());
            }
        });
    }
}

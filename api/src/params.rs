//! Query strings and the health body: the parts of requests and answers
//! that exist only over HTTP.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct AtQuery {
    /// The version to project (number of events folded); default: the
    /// newest. A version, once written, never changes, so an answer at
    /// `at` is the same from every instance and every database it is read
    /// from (standbys included): cache it forever.
    pub at: Option<u64>,
    /// Read-your-writes without `at`: the answer is at version
    /// `min_version` or newer (never older). Pass the `version` your last
    /// accepted action answered, and the service may answer from a standby
    /// that has replayed it; without `at` or `min_version`, the answer is at
    /// the newest version, read from the primary. Ignored beside `at`.
    pub min_version: Option<u64>,
    /// Look as someone else (umpire's token only): `as=<seat>` answers
    /// what that seat's own token would be answered, `as=spectator` what a
    /// reader without a token would, `as=umpire` the umpire's own answer.
    /// A seat may look only as itself or a spectator (403 `umpire_only`
    /// otherwise); a name that is not a seat of the game is 400
    /// `unknown_seat`.
    #[serde(rename = "as")]
    #[param(rename = "as")]
    pub looking_as: Option<String>,
}

impl AtQuery {
    pub fn read(&self) -> umpire_service::ReadAt {
        umpire_service::ReadAt::from_query(self.at, self.min_version)
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct MinVersionQuery {
    /// Read-your-writes: the answer is at version `min_version` or newer
    /// (never older). Pass the `version` your last accepted action
    /// answered, and the service may answer from a standby that has
    /// replayed it; without it, the answer is at the newest version, read
    /// from the primary.
    pub min_version: Option<u64>,
}

impl MinVersionQuery {
    pub fn read(&self) -> umpire_service::ReadAt {
        umpire_service::ReadAt::from_query(None, self.min_version)
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Only events with a sequence number above this (default 0).
    pub after: Option<u64>,
    /// At most this many events (default 100, at most 1000).
    pub limit: Option<u64>,
    /// Look as someone else (umpire's token only): `as=<seat>` answers
    /// what that seat's own token would be answered, `as=spectator` what a
    /// reader without a token would, `as=umpire` the umpire's own answer.
    /// A seat may look only as itself or a spectator (403 `umpire_only`
    /// otherwise); a name that is not a seat of the game is 400
    /// `unknown_seat`.
    #[serde(rename = "as")]
    #[param(rename = "as")]
    pub looking_as: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ScoresQuery {
    /// Score each archive as it stands, without checking its hash chain
    /// first (`umpire score --trust-chain`): for archives this installation
    /// exported itself. Default `false`: an archive whose chain does not
    /// hold (one edited after it was recorded) is an error row with its
    /// code (`archive_hash_mismatch`, `archive_chain_broken`,
    /// `archive_sequence_gap`), and is not scored.
    pub trust_chain: Option<bool>,
}

impl ScoresQuery {
    pub fn chain(&self) -> umpire_archive::ChainCheck {
        if self.trust_chain.unwrap_or(false) {
            umpire_archive::ChainCheck::Trust
        } else {
            umpire_archive::ChainCheck::Verify
        }
    }
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct Health {
    pub status: String,
}

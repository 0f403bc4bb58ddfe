//! Query strings and the health body: the parts of requests and answers
//! that exist only over HTTP.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct AtQuery {
    /// The version to project (number of events folded); default: now.
    pub at: Option<u64>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Only events with a sequence number above this (default 0).
    pub after: Option<u64>,
    /// At most this many events (default 100, at most 1000).
    pub limit: Option<u64>,
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct Health {
    pub status: String,
}

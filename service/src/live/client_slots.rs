//! The stream slots each client holds: one per stream, counted against
//! its client (a token, or a spectator's address) and against the address
//! it comes from whatever the token, since anyone may mint tokens on an
//! open service.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use umpire_domain::Actor;
use uuid::Uuid;

use super::{StreamClient, StreamLimits};
use crate::client_address::ClientAddress;

/// Streams open by each client and each address that has one.
pub(super) struct ClientSlots {
    open: Mutex<HashMap<Counted, usize>>,
    max_per_client: usize,
    max_per_address: usize,
}

/// What a stream's slot is counted against: its client (a token, or a
/// spectator's address), and the address it comes from whatever the token.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Counted {
    Token { game_id: Uuid, actor: Actor<String> },
    Spectator(ClientAddress),
    UnknownSpectator,
    Address(ClientAddress),
}

impl Counted {
    fn of(client: &StreamClient) -> Vec<Counted> {
        let holder = match client {
            StreamClient::Token { game_id, actor, .. } => Counted::Token {
                game_id: *game_id,
                actor: actor.clone(),
            },
            StreamClient::Address(address) => Counted::Spectator(*address),
            StreamClient::Unknown => Counted::UnknownSpectator,
        };
        let mut counted = vec![holder];
        counted.extend(client.address().map(Counted::Address));
        counted
    }
}

/// Which of a client's limits refused a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AtLimit {
    Client,
    Address,
}

impl ClientSlots {
    pub(super) fn new(limits: &StreamLimits) -> ClientSlots {
        ClientSlots {
            open: Mutex::default(),
            max_per_client: limits.max_per_client,
            max_per_address: limits.max_per_address,
        }
    }

    /// A slot for one more stream of `client`, if it has fewer than its
    /// limit open, and so has the address it comes from; else which limit
    /// it is at.
    pub(super) fn take(self: &Arc<Self>, client: StreamClient) -> Result<ClientSlot, AtLimit> {
        let counted = Counted::of(&client);
        let mut open = self.open.lock();
        for key in &counted {
            let (limit, at_limit) = match key {
                Counted::Address(_) => (self.max_per_address, AtLimit::Address),
                _ => (self.max_per_client, AtLimit::Client),
            };
            if open.get(key).copied().unwrap_or(0) >= limit {
                return Err(at_limit);
            }
        }
        for key in &counted {
            *open.entry(key.clone()).or_insert(0) += 1;
        }
        Ok(ClientSlot {
            slots: self.clone(),
            counted,
        })
    }
}

/// One client's hold on one of its stream slots (and its address's), given
/// back when dropped.
pub(crate) struct ClientSlot {
    slots: Arc<ClientSlots>,
    counted: Vec<Counted>,
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock();
        for key in &self.counted {
            if let Some(count) = open.get_mut(key) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    open.remove(key);
                }
            }
        }
    }
}

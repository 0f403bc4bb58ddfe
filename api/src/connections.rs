//! Connections admitted like requests.
//!
//! Each connection holds memory before any handler runs: actix's read
//! buffer (at most 128 KiB), up to 16 pipelined requests, the answer being
//! written, and the socket itself. So a connection is admitted only while
//! the instance holds fewer than [`ConnectionLimits::max_open`], its client
//! fewer than [`ConnectionLimits::max_per_client`], and the memory budget
//! has room for [`CONNECTION_BYTES`]; otherwise its first request is
//! answered 503 `busy` with `Retry-After` and the connection closed. What
//! a connection holds beyond that is bounded by constants: actix (patched,
//! `vendor/actix-http/PATCHED.md`) queues at most 16 pipelined requests,
//! and answers are handed to it in slices ([`in_slices`]) that it takes
//! only while its 32 KiB write buffer has room, so a client that never
//! reads holds at most one slice of answer above that buffer, however
//! many requests it sends.
//!
//! A client is its address, and an IPv6 client its /64: one host is given
//! a whole /64 and may pick any address in it. The trusted proxies are not
//! limited per client (every client behind them shares their address);
//! their clients are limited per request where that matters (streams).

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use actix_web::body::{BodySize, MessageBody};
use actix_web::dev::Extensions;
use actix_web::web::Bytes;
use parking_lot::Mutex;
use prometheus::{IntCounterVec, IntGauge};
use umpire_service::budget::{Charge, Reservation};
use umpire_service::{ClientAddress, GameService};

/// Connections one instance holds open at once unless configured otherwise.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;

/// Connections one client (an address; an IPv6 /64) holds open at once
/// unless configured otherwise: a browser opens six per host, a game client
/// one or two, and each live stream holds one.
pub const DEFAULT_MAX_CONNECTIONS_PER_CLIENT: usize = 64;

/// What an admitted connection is charged to the memory budget: its
/// socket, dispatcher and buffers as a client that pipelines without
/// reading fills them (16 queued requests, 8 KiB undecoded, a write buffer
/// and a slice of answer; the patched dispatcher reads no further). An
/// idle connection holds less (about 14 KiB); charging the bound, not the
/// idle figure, is what kept 600 such clients among the soak's other
/// attacks inside the budget (`scripts/abuse.sh`). What the allocator
/// holds beyond is left to the eighth of the budget kept uncharged.
pub const CONNECTION_BYTES: usize = 48 * 1024;

/// The kernel's send buffer of each connection (Linux doubles what is set,
/// for its own bookkeeping). Left to itself, Linux grows a connection's
/// send buffer up to `net.ipv4.tcp_wmem`'s maximum (4 MiB by default) for a
/// client that does not read, and the workers copy that much answer into
/// it: 600 connections pipelining requests for large documents and never
/// reading cost the host 2.3 GB of kernel memory, and the workers seconds
/// of copying during which other clients' requests timed out (408). A
/// reader 50 ms away still receives 5 MB/s through it.
pub const SEND_BUFFER_BYTES: usize = 128 * 1024;

/// The largest piece of an answer handed to actix at once. actix copies
/// each piece into the connection's write buffer, and takes the next piece
/// only while that buffer holds less than 32 KiB.
pub const SLICE_BYTES: usize = 16 * 1024;

/// How many connections may be open, in all and per client.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    pub max_open: usize,
    pub max_per_client: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_open: DEFAULT_MAX_CONNECTIONS,
            max_per_client: DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
        }
    }
}

/// Why a connection was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Refusal {
    /// The instance holds `max_open` connections.
    Full,
    /// The client holds `max_per_client` connections.
    ClientFull,
    /// The memory budget has no room for another connection.
    NoMemory,
}

impl Refusal {
    pub fn message(self) -> &'static str {
        match self {
            Refusal::Full => "The service holds as many connections as it may; try again shortly.",
            Refusal::ClientFull => {
                "This client holds as many connections as one may; close one and try again."
            }
            Refusal::NoMemory => {
                "The service has no memory for another connection; try again shortly."
            }
        }
    }

    fn label(self) -> &'static str {
        match self {
            Refusal::Full => "instance",
            Refusal::ClientFull => "client",
            Refusal::NoMemory => "memory",
        }
    }
}

/// Counts open connections, in all and per client, and admits new ones.
pub struct ConnectionGate {
    limits: ConnectionLimits,
    /// Whose memory budget connections are charged to (cached folds give
    /// way to them as to any reservation).
    service: GameService,
    trusted_proxies: Vec<IpAddr>,
    counts: Mutex<Counts>,
    open_gauge: IntGauge,
    refused: IntCounterVec,
}

#[derive(Default)]
struct Counts {
    open: usize,
    per_client: HashMap<ClientAddress, usize>,
}

impl std::fmt::Debug for ConnectionGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectionGate")
            .field("limits", &self.limits)
            .field("open", &self.open())
            .finish()
    }
}

/// An admitted connection: counted, and charged, until dropped (actix drops
/// a connection's extensions with the connection).
pub struct Admitted {
    gate: Arc<ConnectionGate>,
    client: Option<ClientAddress>,
    _charge: Reservation,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.gate.leave(self.client);
    }
}

impl ConnectionGate {
    pub fn new(
        limits: ConnectionLimits,
        service: GameService,
        trusted_proxies: Vec<IpAddr>,
        open_gauge: IntGauge,
        refused: IntCounterVec,
    ) -> Arc<ConnectionGate> {
        Arc::new(ConnectionGate {
            limits,
            service,
            trusted_proxies,
            counts: Mutex::new(Counts::default()),
            open_gauge,
            refused,
        })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.counts.lock().open
    }

    /// Admits a connection from `peer`, or says why not.
    pub fn admit(self: &Arc<Self>, peer: Option<IpAddr>) -> Result<Admitted, Refusal> {
        let client = peer
            .filter(|peer| !self.trusted_proxies.contains(peer))
            .map(ClientAddress::from);
        let charge = self
            .service
            .reserve_memory(Charge::Connections, CONNECTION_BYTES)
            .map_err(|_| Refusal::NoMemory);
        let admitted = charge.and_then(|charge| {
            let mut counts = self.counts.lock();
            if counts.open >= self.limits.max_open {
                return Err(Refusal::Full);
            }
            if let Some(client) = client {
                let held = counts.per_client.entry(client).or_insert(0);
                if *held >= self.limits.max_per_client {
                    return Err(Refusal::ClientFull);
                }
                *held += 1;
            }
            counts.open += 1;
            self.open_gauge.inc();
            Ok(Admitted {
                gate: self.clone(),
                client,
                _charge: charge,
            })
        });
        if let Err(refusal) = admitted {
            self.refused.with_label_values(&[refusal.label()]).inc();
        }
        admitted
    }

    fn leave(&self, client: Option<ClientAddress>) {
        let mut counts = self.counts.lock();
        counts.open -= 1;
        self.open_gauge.dec();
        if let Some(client) = client {
            if let Some(held) = counts.per_client.get_mut(&client) {
                *held -= 1;
                if *held == 0 {
                    counts.per_client.remove(&client);
                }
            }
        }
    }

    /// actix's `on_connect` hook: admits the new connection, keeping its
    /// [`Admitted`] among the connection's extensions, or marks it
    /// [`NotAdmitted`]: its first request is then answered 503 `busy` and
    /// the connection closed after the answer (closing it unread instead
    /// would reset it, and the client might never read why).
    pub fn on_connect(self: &Arc<Self>, io: &dyn std::any::Any, extensions: &mut Extensions) {
        let Some(stream) = io.downcast_ref::<actix_web::rt::net::TcpStream>() else {
            return;
        };
        let peer = stream.peer_addr().ok().map(|address| address.ip());
        bound_send_buffer(stream);
        match self.admit(peer) {
            Ok(admitted) => {
                extensions.insert(Arc::new(admitted));
            }
            Err(refusal) => {
                tracing::debug!(?peer, ?refusal, "connection not admitted");
                extensions.insert(NotAdmitted(refusal));
            }
        }
    }
}

/// Sets the connection's kernel send buffer to [`SEND_BUFFER_BYTES`].
fn bound_send_buffer(stream: &actix_web::rt::net::TcpStream) {
    if let Err(error) = socket2::SockRef::from(stream).set_send_buffer_size(SEND_BUFFER_BYTES) {
        tracing::warn!(%error, "a connection's send buffer could not be bounded");
    }
}

/// A connection past a limit: each of its requests is refused.
#[derive(Debug, Clone, Copy)]
pub struct NotAdmitted(pub Refusal);

impl NotAdmitted {
    /// The error its requests are answered with.
    pub fn error(self) -> crate::error::ApiError {
        crate::error::ApiError::ConnectionNotAdmitted(self.0.message())
    }
}

/// An answer given to actix a slice at a time.
pub struct Slices {
    rest: Bytes,
}

impl MessageBody for Slices {
    type Error = std::convert::Infallible;

    fn size(&self) -> BodySize {
        BodySize::Sized(self.rest.len() as u64)
    }

    fn poll_next(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        if self.rest.is_empty() {
            return Poll::Ready(None);
        }
        let length = self.rest.len().min(SLICE_BYTES);
        Poll::Ready(Some(Ok(self.rest.split_to(length))))
    }
}

/// `body`, or, when it is a whole answer longer than a slice, the same
/// bytes handed out a slice at a time (without copying them).
pub fn in_slices<B: MessageBody>(body: B) -> actix_web::body::EitherBody<B, Slices> {
    use actix_web::body::EitherBody;
    match body.size() {
        BodySize::Sized(length) if length > SLICE_BYTES as u64 => match body.try_into_bytes() {
            Ok(rest) => EitherBody::right(Slices { rest }),
            Err(body) => EitherBody::left(body),
        },
        _ => EitherBody::left(body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Given a connection accepted on loopback, once it is bounded its
    /// kernel send buffer is at most twice [`SEND_BUFFER_BYTES`] (what Linux
    /// keeps for what is set), not the megabytes it would grow to.
    #[tokio::test]
    async fn a_connections_send_buffer_is_bounded() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let _client = tokio::net::TcpStream::connect(address).await.unwrap();
        let (accepted, _) = listener.accept().await.unwrap();
        bound_send_buffer(&accepted);
        let size = socket2::SockRef::from(&accepted)
            .send_buffer_size()
            .unwrap();
        assert!(
            (SEND_BUFFER_BYTES..=2 * SEND_BUFFER_BYTES).contains(&size),
            "{size}"
        );
    }

    #[test]
    fn a_long_answer_is_handed_out_in_slices_of_the_same_bytes() {
        let whole = Bytes::from(vec![7u8; SLICE_BYTES * 2 + 5]);
        let body = in_slices(actix_web::body::BoxBody::new(whole.clone()));
        let mut body = std::pin::pin!(body);
        let waker = futures_util::task::noop_waker();
        let mut context = Context::from_waker(&waker);
        let mut lengths = Vec::new();
        while let Poll::Ready(Some(Ok(slice))) = body.as_mut().poll_next(&mut context) {
            assert!(whole.as_ptr_range().contains(&slice.as_ptr()), "not copied");
            lengths.push(slice.len());
        }
        assert_eq!(lengths, vec![SLICE_BYTES, SLICE_BYTES, 5]);
    }
}

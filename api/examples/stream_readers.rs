//! The readers of `scripts/bench-streams.sh`: many live streams read by one
//! thread, noting when each message's `id:` line arrives.
//!
//!     stream_readers HOST PORT < control
//!
//! Standard input first lists the streams, one per line (`GAME_ID TOKEN
//! SETUP`, the token `-` for a spectator, SETUP the version the game was
//! created at), then an empty line. The readers open every stream and print
//! `ready` once each has read its game's setup. Then `go` (a line) forgets
//! what arrived so far, and `stop` prints every arrival since as `GAME_ID
//! VERSION SECONDS` (CLOCK_MONOTONIC, the clock Python's `time.monotonic`
//! reads), then `end`, and exits.
//!
//! To a loopback address, streams come from 127.0.0.1, 127.0.0.2, ... in
//! turn, [`STREAMS_PER_SOURCE`] from each: one source address has about
//! 28,000 ephemeral ports to one server port, and the fan-out benchmark
//! asks for up to 100,000 streams.
//!
//! A benchmark's reader shares the machine with the service it measures, so
//! it is made to cost little: one thread, one epoll loop, no parsing beyond
//! finding `\nid: ` lines. A Python reader cost 11 µs of CPU per message;
//! this one costs a few.

use std::cell::RefCell;
use std::io::{BufRead as _, Write as _};
use std::rc::Rc;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::mpsc;

/// Streams opened from one loopback source address (of its ~28,000
/// ephemeral ports to the server's one port).
const STREAMS_PER_SOURCE: usize = 20_000;

/// A connection to `server`, from the loopback address stream `index`
/// takes when the server is on loopback.
async fn connect(server: SocketAddr, index: usize) -> std::io::Result<TcpStream> {
    let IpAddr::V4(ip) = server.ip() else {
        return TcpStream::connect(server).await;
    };
    if !ip.is_loopback() {
        return TcpStream::connect(server).await;
    }
    let source = u8::try_from(1 + index / STREAMS_PER_SOURCE).unwrap_or(u8::MAX);
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(
        IpAddr::V4(Ipv4Addr::new(127, 0, 0, source)),
        0,
    ))?;
    socket.connect(server).await
}

/// One stream to open.
struct Follow {
    game_id: String,
    token: Option<String>,
    setup: u64,
}

/// What the readers share: arrivals since `go`, and how many streams have
/// yet to read their setup.
#[derive(Default)]
struct Shared {
    arrivals: Vec<(usize, u64, f64)>,
    pending: usize,
}

fn monotonic_seconds() -> f64 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(host), Some(port)) = (args.next(), args.next()) else {
        return Err("usage: stream_readers HOST PORT < control".into());
    };
    let port: u16 = port.parse()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, run(host, port))
}

/// The control lines of standard input, read on a thread of their own.
fn control_lines() -> mpsc::UnboundedReceiver<std::io::Result<String>> {
    let (sender, receiver) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            if sender.send(line).is_err() {
                return;
            }
        }
    });
    receiver
}

async fn run(host: String, port: u16) -> Result<(), Box<dyn std::error::Error>> {
    let mut control = control_lines();
    let mut follows = Vec::new();
    while let Some(line) = control.recv().await {
        let line = line?;
        if line.is_empty() {
            break;
        }
        let mut fields = line.split_whitespace();
        let (Some(game_id), Some(token), Some(setup)) =
            (fields.next(), fields.next(), fields.next())
        else {
            return Err(format!("a stream line needs GAME_ID TOKEN SETUP: {line:?}").into());
        };
        follows.push(Follow {
            game_id: game_id.to_string(),
            token: (token != "-").then(|| token.to_string()),
            setup: setup.parse()?,
        });
    }
    let shared = Rc::new(RefCell::new(Shared {
        arrivals: Vec::new(),
        pending: follows.len(),
    }));
    let (ready_tx, mut ready_rx) = mpsc::unbounded_channel::<()>();
    let (failed_tx, mut failed_rx) = mpsc::unbounded_channel::<String>();
    let server = tokio::net::lookup_host((host.as_str(), port))
        .await?
        .next()
        .ok_or("the host has no address")?;
    for (index, follow) in follows.iter().enumerate() {
        let mut socket = connect(server, index).await?;
        socket.set_nodelay(true)?;
        let auth = follow
            .token
            .as_ref()
            .map(|token| format!("Authorization: Bearer {token}\r\n"))
            .unwrap_or_default();
        let request = format!(
            "GET /v1/games/{}/stream HTTP/1.1\r\nHost: {host}\r\n{auth}\r\n",
            follow.game_id
        );
        socket.write_all(request.as_bytes()).await?;
        tokio::task::spawn_local(read_stream(
            socket,
            index,
            follow.setup,
            shared.clone(),
            ready_tx.clone(),
            failed_tx.clone(),
        ));
    }
    if !follows.is_empty() {
        tokio::select! {
            _ = ready_rx.recv() => {}
            failed = failed_rx.recv() => return Err(failed.unwrap_or_default().into()),
        }
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready")?;
    out.flush()?;
    drop(out);
    while let Some(line) = control.recv().await {
        match line?.trim() {
            "go" => shared.borrow_mut().arrivals.clear(),
            "stop" => {
                let shared = shared.borrow();
                let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                for (index, version, at) in &shared.arrivals {
                    writeln!(out, "{} {version} {at:.6}", follows[*index].game_id)?;
                }
                writeln!(out, "end")?;
                out.flush()?;
                return Ok(());
            }
            other => return Err(format!("unknown command {other:?}").into()),
        }
    }
    Ok(())
}

/// Reads one stream until it ends, noting each `id:` line's arrival.
async fn read_stream(
    mut socket: TcpStream,
    index: usize,
    setup: u64,
    shared: Rc<RefCell<Shared>>,
    ready: mpsc::UnboundedSender<()>,
    failed: mpsc::UnboundedSender<String>,
) {
    let mut waiting_for_setup = true;
    // The unfinished line, after the newline before it.
    let mut pending: Vec<u8> = b"\n".to_vec();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = match socket.read(&mut buffer).await {
            // Closed before its setup arrived: refused (a 429 or a 503 past
            // a limit), which the harness must hear of rather than wait.
            Ok(0) if waiting_for_setup => {
                let head = String::from_utf8_lossy(&pending).into_owned();
                let status = head.lines().nth(1).unwrap_or("nothing").to_string();
                let _ = failed.send(format!("stream {index} closed before its setup: {status}"));
                return;
            }
            Ok(0) => return,
            Ok(read) => read,
            Err(error) => {
                let _ = failed.send(format!("stream {index}: {error}"));
                return;
            }
        };
        let now = monotonic_seconds();
        pending.extend_from_slice(&buffer[..read]);
        let Some(complete) = memchr::memrchr(b'\n', &pending) else {
            continue;
        };
        let mut shared = shared.borrow_mut();
        for start in memchr::memmem::find_iter(&pending[..=complete], b"\nid: ") {
            // Only a whole line: its newline is at `complete` at the latest.
            let Some(rest) = pending.get(start + 5..=complete) else {
                continue;
            };
            let Some(version) = memchr::memchr(b'\n', rest)
                .and_then(|end| std::str::from_utf8(&rest[..end]).ok())
                .and_then(|digits| digits.parse::<u64>().ok())
            else {
                continue;
            };
            shared.arrivals.push((index, version, now));
            if waiting_for_setup && version >= setup {
                waiting_for_setup = false;
                shared.pending -= 1;
                if shared.pending == 0 {
                    let _ = ready.send(());
                }
            }
        }
        pending.drain(..complete);
    }
}

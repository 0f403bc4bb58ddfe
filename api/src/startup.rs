//! Building and running the HTTP server.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::{Server, Service};
use actix_web::http::header;
use actix_web::{middleware, web, App, HttpRequest, HttpResponse, HttpServer};
use utoipa_actix_web::{scope, AppExt};

use crate::body_deadline;
use crate::connections::{self, ConnectionGate, ConnectionLimits};
use crate::error::{json_error, path_error, query_error, ApiError};
use crate::metrics::RequestMetrics;
use crate::openapi;
use crate::request_span::RequestSpan;
use crate::routes::health;
use crate::routes::stream::StreamLimits;
use crate::security_headers;
use crate::stop_signal::StopSignals;
use crate::wrong_method::KnownPaths;
use umpire_service::GameService;

/// Largest accepted JSON body. Actions are small; this bounds memory per request.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// What every handler shares.
pub struct AppState {
    pub service: GameService,
    /// When set, creating or importing a game needs `Authorization: Bearer
    /// <admin token>`; when unset the service runs open (and says so at start).
    pub admin_token: Option<String>,
    /// Turns at handling archive bodies (`routes/archives.rs`).
    pub archive_bodies: Arc<tokio::sync::Semaphore>,
    /// Proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: crate::client_address::TrustedProxies,
}

/// Deployment choices beyond the store and the address.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    pub admin_token: Option<String>,
    /// The database to listen on for appends (by any instance), which wake
    /// live streams; without it, streams still read the log at every
    /// heartbeat and are woken at once by this instance's own appends.
    pub listen_url: Option<String>,
    pub streams: StreamLimits,
    /// Bytes the process may hold in what grows with clients or stored
    /// data (`umpire_service::budget`).
    pub memory_budget: usize,
    /// Whether the process's resident memory at start is charged to the
    /// budget: so for `umpire serve`, which is the whole process; not for a
    /// server inside another program (the tests), whose memory is not its.
    pub budget_includes_process: bool,
    /// How long an idle connection is kept open for the client's next
    /// request ([`KEEP_ALIVE`]).
    pub keep_alive: std::time::Duration,
    /// How long a new connection is given to send its first request's
    /// head ([`REQUEST_HEAD_TIMEOUT`]).
    pub request_head_timeout: std::time::Duration,
    /// Whether this instance times seats out when their clocks run out
    /// (`umpire_service::timekeeper`); every instance may, at once.
    pub keep_time: bool,
    /// Streaming standbys that reads naming a version may be answered from
    /// (`umpire_service::replicas`); none by default.
    pub replicas: Option<umpire_service::ReplicaSettings>,
    /// Proxies in front of the service (`--trusted-proxy`) whose
    /// `X-Forwarded-For` says which client a request is from.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Connections held open at once, in all and per client.
    pub connections: ConnectionLimits,
    /// Without an admin token: games one client address may create or
    /// import a minute.
    pub creations_per_minute: u32,
    /// The umpire's actions outside the rules (pause, resume, extra time,
    /// reissue) one game takes.
    pub umpire_extras: umpire_service::throttle::Rate,
}

/// How long an idle connection is kept for its client's next request.
///
/// actix times it by a clock each worker advances every 500 ms between its
/// tasks, so a worker that does not get to advance it (seconds of work on
/// it, or thousands of pipelined requests on a busy machine) measures from
/// a past instant: a connection it answers then is closed at once after
/// its answer, without `Connection: close`, and a client reusing it sees a
/// reset. Work that takes long therefore runs off the workers
/// (`GameService::import`, audits, scoring).
pub const KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(5);

/// How long a new connection is given to send its first request's head
/// before it is answered 408 and closed (actix's own default): a client
/// that opens connections and sends nothing holds each this long at most.
/// It is timed by the same worker's clock as [`KEEP_ALIVE`], so a worker
/// that was busy for seconds answers a connection it takes then with 408 at
/// once: the bound errs on the side of letting go.
pub const REQUEST_HEAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// How long requests in flight are given to finish once a stop is asked.
pub const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);

impl Default for ServiceOptions {
    fn default() -> Self {
        ServiceOptions {
            admin_token: None,
            listen_url: None,
            streams: StreamLimits::default(),
            memory_budget: umpire_service::budget::DEFAULT_MEMORY_BUDGET,
            budget_includes_process: false,
            keep_alive: KEEP_ALIVE,
            request_head_timeout: REQUEST_HEAD_TIMEOUT,
            keep_time: true,
            replicas: None,
            trusted_proxies: Vec::new(),
            connections: ConnectionLimits::default(),
            creations_per_minute: umpire_service::throttle::DEFAULT_CREATIONS_PER_MINUTE,
            umpire_extras: umpire_service::throttle::UMPIRE_EXTRAS_PER_GAME,
        }
    }
}

pub struct Application {
    port: u16,
    server: Server,
    /// Stopped once the server has: its background work ends and its
    /// pools close before the database may go.
    service: GameService,
}

/// What no route takes: a path served with other methods (405, with
/// `Allow`), or one that leads nowhere (404).
async fn no_route(
    request: HttpRequest,
    known_paths: web::Data<KnownPaths>,
) -> Result<HttpResponse, ApiError> {
    let allowed = known_paths.allowed(request.path());
    if !allowed.is_empty() {
        return Err(ApiError::MethodNotAllowed { allowed });
    }
    Err(umpire_service::ServiceError::NotFound {
        code: "route_not_found",
        message: "There is no such endpoint; see /openapi.json.".into(),
    }
    .into())
}

impl Application {
    /// Binds `address` (port 0 picks a free port) and prepares the server,
    /// open to anyone for game creation.
    pub fn build(
        store: umpire_storage::EventStore,
        address: &str,
        workers: Option<usize>,
    ) -> std::io::Result<Self> {
        Self::build_with(store, address, workers, ServiceOptions::default())
    }

    pub fn build_with(
        store: umpire_storage::EventStore,
        address: &str,
        workers: Option<usize>,
        options: ServiceOptions,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind(address)?;
        let port = listener.local_addr()?.port();
        let registry = Arc::new(umpire_games::registry());
        let limits = umpire_service::ServiceLimits {
            memory_budget: options.memory_budget,
            streams: options.streams,
            creations_per_minute: options.creations_per_minute,
            umpire_extras: options.umpire_extras,
        };
        let mut service = GameService::with_limits(store, registry, limits);
        if let Some(replicas) = &options.replicas {
            service
                .read_from_standbys(replicas)
                .map_err(|error| std::io::Error::other(format!("a standby's URL: {error}")))?;
        }
        if options.budget_includes_process {
            // What the process holds before serving anything is charged
            // first, so that the budget bounds the process, not only what
            // it adds.
            service.budget.add(
                umpire_service::Charge::Process,
                umpire_service::budget::resident_bytes(),
            );
        }
        if let Some(url) = options.listen_url {
            service.listen_for_appends(url);
        }
        if options.keep_time {
            service.keep_time();
        }
        service.keep_snapshots();
        let request_metrics = RequestMetrics::new(&service.metrics);
        let gate = ConnectionGate::new(
            options.connections,
            service.clone(),
            options.trusted_proxies.clone(),
            request_metrics.connections_open.clone(),
            request_metrics.connections_refused.clone(),
        );
        let state = web::Data::new(AppState {
            service: service.clone(),
            admin_token: options.admin_token.filter(|token| !token.is_empty()),
            archive_bodies: Arc::new(tokio::sync::Semaphore::new(
                crate::routes::archives::ARCHIVE_BODIES_AT_ONCE,
            )),
            trusted_proxies: crate::client_address::TrustedProxies::new(options.trusted_proxies),
        });
        let document = openapi::document();
        let known_paths = web::Data::new(KnownPaths::new(&document));
        let documents = web::Data::new(crate::routes::documents::Documents::new(&document));
        let mut server = HttpServer::new(move || {
            let (app, _) = App::new()
                .into_utoipa_app()
                .openapi(openapi::base())
                .app_data(state.clone())
                .app_data(
                    web::JsonConfig::default()
                        .limit(MAX_BODY_BYTES)
                        .error_handler(json_error),
                )
                .app_data(web::QueryConfig::default().error_handler(query_error))
                .app_data(web::PathConfig::default().error_handler(path_error))
                .app_data(web::Data::from(request_metrics.clone()))
                .map(|app| {
                    let request_metrics = request_metrics.clone();
                    // Innermost, so that the answer is sliced while it is
                    // still whole, before the wrappers outside it. A
                    // connection past a limit is answered here, before
                    // any handler.
                    app.wrap_fn(|request, service| {
                        let answer = match request.conn_data::<connections::NotAdmitted>() {
                            Some(not_admitted) => Err(not_admitted.error()),
                            None => Ok(service.call(request)),
                        };
                        async move {
                            Ok(answer?
                                .await?
                                .map_body(|_, body| connections::in_slices(body)))
                        }
                    })
                    .wrap_fn(|mut request, service| {
                        body_deadline::limit_body(&mut request);
                        service.call(request)
                    })
                    .wrap(RequestSpan)
                    .wrap_fn(|request, service| {
                        let answer = service.call(request);
                        async move {
                            let mut response = answer.await?;
                            security_headers::add(&mut response);
                            Ok(response)
                        }
                    })
                    .wrap_fn(move |request, service| request_metrics.measure(request, service))
                })
                // Answers carry tokens, per-seat secrets and states that
                // change: no cache, shared or private, may keep them.
                .service(
                    scope::scope("/v1")
                        .wrap(
                            middleware::DefaultHeaders::new()
                                .add((header::CACHE_CONTROL, "no-store")),
                        )
                        .configure(openapi::v1_routes),
                )
                .service(health::healthz)
                .service(health::readyz)
                .split_for_parts();
            app.service(crate::routes::home::home)
                .route("/metrics", web::get().to(crate::metrics::serve))
                .service(crate::routes::viewer::open_game)
                .service(crate::routes::viewer::game_page)
                .service(crate::routes::viewer::new_game_page)
                .service(crate::routes::viewer::join_page)
                .service(crate::routes::viewer::asset)
                .service(crate::routes::rules::index)
                .service(crate::routes::rules::index_with_slash)
                .service(crate::routes::rules::rule_page)
                .service(web::redirect("/docs", "/docs/").permanent())
                .route(
                    "/openapi.json",
                    web::get().to(crate::routes::documents::openapi_json),
                )
                .route(
                    "/docs/{_:.*}",
                    web::get().to(crate::routes::documents::swagger_ui),
                )
                .app_data(documents.clone())
                .app_data(known_paths.clone())
                .default_service(web::to(no_route))
        })
        .shutdown_timeout(SHUTDOWN_TIMEOUT.as_secs())
        // `umpire serve` handles the stop signals (`run_until_signalled`).
        .disable_signals()
        .keep_alive(options.keep_alive)
        .client_request_timeout(options.request_head_timeout)
        // The gate counts every worker's connections against one limit and
        // answers those past it; actix's own limit (per worker) is only a
        // backstop above it, so that the gate sees, and answers, a few past
        // its limit rather than leaving them unanswered in the backlog.
        .max_connections(options.connections.max_open + options.connections.max_open / 8 + 64)
        .on_connect(move |io, extensions| gate.on_connect(io, extensions))
        // Responses are small and latency is what clients wait on: send each
        // as soon as it is written instead of letting Nagle's algorithm hold
        // back a segment until the client's (delayed) ACK arrives.
        .tcp_nodelay(true)
        .listen(listener)?;
        if let Some(workers) = workers {
            server = server.workers(workers);
        }
        Ok(Application {
            port,
            server: server.run(),
            service,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Runs until the server is stopped (a test's, when its runtime ends);
    /// the service's background work then stops and its pools close.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let served = self.server.await;
        self.service.stop().await;
        served
    }

    /// Runs until SIGINT or SIGTERM, seen by `stop`, which has listened
    /// since startup began; in-flight requests finish first (for at most
    /// the shutdown timeout). The server never registers handlers of its
    /// own: a signal that came between the end of startup and their
    /// registration went to `stop` alone, and was lost.
    pub async fn run_until_signalled(self, mut stop: StopSignals) -> std::io::Result<()> {
        let handle = self.server.handle();
        let mut server = self.server;
        tokio::select! {
            ended = &mut server => {
                self.service.stop().await;
                return ended;
            }
            signal = stop.received() => {
                tracing::info!("{}: finishing the requests in flight, then stopping", signal.name());
            }
        }
        // Live streams never end by themselves: each is ended now (an
        // `end` message, `stopping`) so that they do not hold the stop.
        self.service.end_streams();
        // The stop is carried out by the server's own future, so it is
        // asked for and awaited together with that future: awaiting the
        // handle alone waited for a future nobody polled, until the
        // timeout below (35 s, and a warning, at every stop). Past the time
        // requests in flight are given, the process ends regardless.
        let stopping = async {
            let (ended, ()) = tokio::join!(server, handle.stop(true));
            ended
        };
        let stopped =
            match tokio::time::timeout(SHUTDOWN_TIMEOUT + Duration::from_secs(5), stopping).await {
                Ok(stopped) => stopped,
                Err(_) => {
                    tracing::warn!("the HTTP server did not stop in time; stopping regardless");
                    Ok(())
                }
            };
        // Then the timekeeper, the listener and the probes, and the pools:
        // nothing is left using the database, which may go next (`serve`
        // stops its private cluster).
        self.service.stop().await;
        stopped
    }
}

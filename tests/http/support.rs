//! One real server per test: a fresh database, the actix app on a free port,
//! and a client with a method per endpoint.

use rand::seq::IndexedRandom;
use rand::SeedableRng;
use reqwest::{Response, StatusCode};
use serde_json::{json, Value};
use umpire_api::{Application, ServiceOptions};
use umpire_storage::testing::PATIENT;
use umpire_storage::{connect_with, EventStore, PoolTimeouts};
use uuid::Uuid;

/// How long a test server may take to serve its first request.
const STARTING: std::time::Duration = std::time::Duration::from_secs(60);

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub store: EventStore,
    pub database_url: String,
}

/// What `create_game` answered, parsed.
#[derive(Debug, Clone)]
pub struct Created {
    pub id: String,
    pub umpire_token: String,
    pub seat_tokens: Vec<(String, String)>,
}

impl Created {
    pub fn token(&self, seat: &str) -> &str {
        &self
            .seat_tokens
            .iter()
            .find(|(name, _)| name == seat)
            .unwrap_or_else(|| panic!("no seat {seat}"))
            .1
    }
}

/// The tests' HTTP client. It drops idle connections well before the
/// server's keep-alive (actix's default, 5 s) ends them: reusing one just as
/// the server closes it fails the next request with a broken pipe, which a
/// test that spends seconds preparing a large body between two requests hit.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(2))
        .build()
        .expect("an HTTP client")
}

impl TestApp {
    pub async fn spawn() -> TestApp {
        Self::spawn_with(ServiceOptions::default()).await
    }

    /// A server on a fresh database, listening for appends on it (as
    /// `umpire serve` does) unless `options` say where. Its pool has the
    /// tests' [`PATIENT`] timeouts: on a machine busy with other work,
    /// opening a connection took longer than the service's 3 s, and what
    /// the tests check is not how soon an exhausted pool gives up.
    pub async fn spawn_with(options: ServiceOptions) -> TestApp {
        Self::spawn_with_pool(PATIENT, options).await
    }

    /// [`spawn_with`](Self::spawn_with), its pool with `timeouts`
    /// (`PoolTimeouts::SERVICE`: as the service's own).
    pub async fn spawn_with_pool(timeouts: PoolTimeouts, options: ServiceOptions) -> TestApp {
        let url = umpire_storage::testing::fresh_database_url().await;
        let store = EventStore::new(connect_with(&url, 8, timeouts).expect("pool"));
        Self::serve(store, url, options).await
    }

    /// A server on the database at `url` (a migrated one), listening for
    /// appends on it.
    pub async fn spawn_on(url: &str, options: ServiceOptions) -> TestApp {
        let store = EventStore::new(connect_with(url, 8, PATIENT).expect("pool"));
        Self::serve(store, url.to_string(), options).await
    }

    /// Starts a server and returns once it has answered a request.
    ///
    /// Its workers start only when the test first waits, and actix times
    /// a connection's deadlines (the first request's head, keep-alive) by
    /// a clock each worker advances every 500 ms between its tasks: on a
    /// busy machine a worker still starting had stood still for over 5 s,
    /// so a test's first connection got an unasked-for 408, or was closed
    /// right after its first answer. One answered request lets the clock
    /// catch up (a test about starting, `logging.rs`, uses `Served`).
    async fn serve(
        store: EventStore,
        database_url: String,
        mut options: ServiceOptions,
    ) -> TestApp {
        options
            .listen_url
            .get_or_insert_with(|| database_url.clone());
        // Every test creates its games from one address: only a test of
        // the creation throttle, which sets a rate of its own, meets it.
        if options.creations_per_minute == umpire_service::throttle::DEFAULT_CREATIONS_PER_MINUTE {
            options.creations_per_minute = 1_000_000;
        }
        // Tests pause and resume clocks by the hundred: only the test of
        // the umpire's pace, which sets a rate of its own, meets it.
        if options.umpire_extras == umpire_service::throttle::UMPIRE_EXTRAS_PER_GAME {
            options.umpire_extras = umpire_service::throttle::Rate {
                burst: 1e9,
                per_second: 1e9,
            };
        }
        // The one worker's clock stands still while it works for seconds
        // (see `umpire_api::startup::REQUEST_HEAD_TIMEOUT` and
        // `KEEP_ALIVE`): a test's next connection was then answered 408 at
        // once, and one kept alive could be closed right after its answer.
        // Only the tests of those bounds, which set their own, meet them;
        // the tests' client lets its idle connections go after 2 s.
        if options.request_head_timeout == umpire_api::startup::REQUEST_HEAD_TIMEOUT {
            options.request_head_timeout = std::time::Duration::from_secs(120);
        }
        if options.keep_alive == umpire_api::startup::KEEP_ALIVE {
            options.keep_alive = std::time::Duration::from_secs(120);
        }
        let application =
            Application::build_with(store.clone(), "127.0.0.1:0", Some(1), options).expect("bind");
        let address = format!("http://127.0.0.1:{}", application.port());
        tokio::spawn(application.run_until_stopped());
        let app = TestApp {
            address,
            client: client(),
            store,
            database_url,
        };
        app.until_serving().await;
        app
    }

    /// Asks for `/healthz` on connections of its own until one is answered
    /// 200 (at most [`STARTING`]).
    async fn until_serving(&self) {
        let probe = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("an HTTP client");
        let deadline = std::time::Instant::now() + STARTING;
        loop {
            let answer = probe.get(self.url("/healthz")).send().await;
            match answer {
                Ok(answer) if answer.status() == StatusCode::OK => return,
                answer if std::time::Instant::now() > deadline => {
                    panic!("the server did not serve within {STARTING:?}: {answer:?}")
                }
                _ => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
            }
        }
    }

    /// A second server on the same database, with its own cache: what a
    /// deployment of several instances behind a load balancer looks like.
    pub async fn another_instance(&self) -> TestApp {
        self.another_instance_with(ServiceOptions::default()).await
    }

    pub async fn another_instance_with(&self, options: ServiceOptions) -> TestApp {
        Self::serve(self.store.clone(), self.database_url.clone(), options).await
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub async fn post_json(&self, path: &str, token: Option<&str>, body: &Value) -> Response {
        let mut request = self.client.post(self.url(path)).json(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.expect("request")
    }

    /// POSTs a body as it is, labelled JSON (archives, junk).
    pub async fn post(&self, path: &str, token: Option<&str>, body: String) -> Response {
        let mut request = self
            .client
            .post(self.url(path))
            .header("content-type", "application/json")
            .body(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.expect("request")
    }

    /// Posts a JSON Lines body (`application/x-ndjson`): many archives.
    pub async fn post_json_lines(&self, path: &str, token: Option<&str>, body: String) -> Response {
        let mut request = self
            .client
            .post(self.url(path))
            .header("content-type", "application/x-ndjson")
            .body(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.expect("request")
    }

    /// Imports an archive; the answer's status and body.
    pub async fn import(&self, archive: &umpire_archive::Archive) -> (StatusCode, Value) {
        let response = self
            .post(
                "/v1/games/import",
                None,
                serde_json::to_string(archive).unwrap(),
            )
            .await;
        let status = response.status();
        (status, response.json().await.unwrap())
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Response {
        let mut request = self.client.get(self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.expect("request")
    }

    pub async fn create(&self, game: &str, options: Value, seed: u64) -> Created {
        self.create_with(&json!({"game": game, "options": options, "seed": seed}))
            .await
    }

    /// Creates a game from a whole request body (a clock, say).
    pub async fn create_with(&self, request: &Value) -> Created {
        let response = self.post_json("/v1/games", None, request).await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let body: Value = response.json().await.unwrap();
        Created {
            id: body["id"].as_str().unwrap().to_string(),
            umpire_token: body["umpire_token"].as_str().unwrap().to_string(),
            seat_tokens: body["seat_tokens"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(seat, token)| (seat.clone(), token.as_str().unwrap().to_string()))
                .collect(),
        }
    }

    pub async fn submit(&self, id: &str, token: Option<&str>, action: Value) -> Response {
        self.post_json(
            &format!("/v1/games/{id}/actions"),
            token,
            &json!({"action": action}),
        )
        .await
    }

    /// `GET legal-actions` for `token`: `{version, actions}`.
    pub async fn legal_actions(&self, id: &str, token: &str) -> Value {
        self.get(&format!("/v1/games/{id}/legal-actions"), Some(token))
            .await
            .json()
            .await
            .unwrap()
    }

    /// Sends `head` and the start of a body it promises to be longer, then
    /// waits (at most 120 s: a ceiling against a hang) for the whole answer
    /// and the connection's close.
    pub async fn stalled_body(&self, head: &str, partial_body: &[u8]) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let address = self.address.trim_start_matches("http://").to_string();
        let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(partial_body).await.unwrap();
        let mut answer = Vec::new();
        tokio::time::timeout(
            std::time::Duration::from_secs(120),
            stream.read_to_end(&mut answer),
        )
        .await
        .expect("the server answers and closes instead of waiting forever")
        .unwrap();
        String::from_utf8_lossy(&answer).into_owned()
    }

    pub async fn summary(&self, id: &str) -> Value {
        self.get(&format!("/v1/games/{id}"), None)
            .await
            .json()
            .await
            .unwrap()
    }

    /// The number of events stored, read straight from the database.
    pub async fn stored_version(&self, id: &str) -> u64 {
        self.store
            .version(Uuid::parse_str(id).unwrap())
            .await
            .unwrap()
    }

    /// Plays random legal actions, each seat with its own token (the umpire
    /// when no seat is waiting), until the game ends. Returns the number of
    /// actions played.
    pub async fn play_to_the_end(&self, game: &Created, seed: u64, max_actions: usize) -> usize {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        for played in 0..max_actions {
            if self.play_one(game, &mut rng).await.is_none() {
                return played;
            }
        }
        panic!("game {} did not end within {max_actions} actions", game.id);
    }

    /// Plays one legal action, chosen by `rng`, of a seat that must act
    /// (or the umpire when none must): its accepted answer, or `None` when
    /// the game has ended.
    pub async fn play_one(&self, game: &Created, rng: &mut impl rand::Rng) -> Option<Value> {
        let summary = self.summary(&game.id).await;
        if summary["status"]["finished"].as_bool().unwrap() {
            return None;
        }
        let to_act: Vec<String> = summary["status"]["to_act"]
            .as_array()
            .unwrap()
            .iter()
            .map(|seat| seat.as_str().unwrap().to_string())
            .collect();
        let token = match to_act.choose(rng) {
            Some(seat) => game.token(seat).to_string(),
            None => game.umpire_token.clone(),
        };
        let legal: Value = self
            .get(
                &format!("/v1/games/{}/legal-actions", game.id),
                Some(&token),
            )
            .await
            .json()
            .await
            .unwrap();
        let actions = legal["actions"].as_array().unwrap();
        let action = actions
            .choose(rng)
            .unwrap_or_else(|| panic!("no legal action offered in {summary}"))
            .clone();
        let response = self.submit(&game.id, Some(&token), action.clone()).await;
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        assert_eq!(
            status,
            StatusCode::CREATED,
            "{action} was listed as legal but got {body}"
        );
        Some(body)
    }
}

/// Asserts an error response: status, envelope shape and code.
pub async fn assert_error(response: Response, status: StatusCode, code: &str) -> Value {
    assert_eq!(response.status(), status);
    assert_eq!(
        status.as_u16(),
        stated_status(code),
        "{code} is answered {status}, not the status service/src/codes.rs states for it"
    );
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    assert!(
        content_type.starts_with("application/json"),
        "content type {content_type}"
    );
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["message"].as_str().is_some_and(is_a_sentence),
        "the message is a sentence: {body}"
    );
    body
}

/// Every error message is written in one style: a sentence that starts with
/// a capital letter, a number or a quoted name (`` `limit` ``), and ends
/// with a full stop.
pub fn is_a_sentence(message: &str) -> bool {
    let starts_well = message
        .chars()
        .next()
        .is_some_and(|first| first.is_uppercase() || first.is_ascii_digit() || first == '`');
    starts_well && message.ends_with('.')
}

/// `umpire serve` as its own process on `database_url` (so that its memory
/// and its log can be read), its log lines collected; killed when dropped.
pub struct Served {
    child: std::process::Child,
    /// `127.0.0.1:PORT`.
    pub address: String,
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Served {
    pub fn start(database_url: &str, log_filter: &str) -> Served {
        use std::io::BufRead;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_umpire"))
            .args(["serve", "--bind", "127.0.0.1:0", "--workers", "1"])
            .env("DATABASE_URL", database_url)
            .env("UMPIRE_POOL_WAIT", PATIENT.wait.as_secs().to_string())
            .env("UMPIRE_LOG", log_filter)
            .env_remove("UMPIRE_LOG_FORMAT")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("umpire serve starts");
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
        let mut port = None;
        let mut said = String::new();
        for line in stderr.by_ref() {
            let line = line.expect("stderr");
            said.push_str(&line);
            said.push('\n');
            if let Some(rest) = line.split("(port ").nth(1) {
                port = rest.split(')').next().map(str::to_string);
                break;
            }
        }
        let port = port.unwrap_or_else(|| panic!("umpire serve did not start:\n{said}"));
        // Its later lines are read as they come, so that it never blocks on
        // (or fails writing to) a full pipe.
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let collected = log.clone();
        std::thread::spawn(move || {
            for line in stderr.map_while(Result::ok) {
                collected.lock().unwrap().push(line);
            }
        });
        Served {
            child,
            address: format!("127.0.0.1:{port}"),
            log,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// What it logged since it started listening, once it has had time to
    /// write the lines of the requests just answered.
    pub async fn log_so_far(&self) -> Vec<String> {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        self.log.lock().unwrap().clone()
    }

    /// What it logged, once `complete` holds for it (failing after a
    /// minute): lines a test expects are waited for, not given a moment.
    pub async fn log_once(&self, complete: impl Fn(&[String]) -> bool) -> Vec<String> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let log = self.log.lock().unwrap().clone();
            if complete(&log) {
                return log;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the log never got there: {log:#?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// Resident memory, KiB.
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The value of the first series of `/metrics` text that starts with
/// `name` (with its labels, if any).
pub fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no metric {name} in\n{text}"))
}

/// The HTTP status the published meaning of `code` states: the number it
/// starts with (`"409: …"`, a game's `"422 (arboretum §4): …"`). Panics when
/// the code is not published (`service/src/codes.rs`, the games' codes) or
/// its meaning states no status.
pub fn stated_status(code: &str) -> u16 {
    let published = umpire_service::codes::published(&umpire_games::registry());
    let (_, meaning) = published
        .iter()
        .find(|(published, _)| published == code)
        .unwrap_or_else(|| {
            panic!("{code} is not in the published list of error codes (service/src/codes.rs)")
        });
    meaning
        .get(..3)
        .and_then(|digits| digits.parse().ok())
        .unwrap_or_else(|| panic!("the meaning of {code} states no status: {meaning}"))
}

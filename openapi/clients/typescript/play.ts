/**
 * Plays whole games through the generated TypeScript client: types from
 * openapi-typescript (generated/schema.d.ts), calls through openapi-fetch.
 *
 *     node dist/play.js BASE_URL      (after `tsc -p tsconfig.json`)
 *
 * For each game below: creates it, then until the summary reports
 * `status.finished`, picks a seat from `status.to_act`, lists that seat's
 * legal actions and submits one (with an Idempotency-Key), every seat with
 * its own token. Reads the final score and the umpire's event log. Also
 * submits an action out of turn and reads the 422's `code` and `rule` as
 * typed fields of `components["schemas"]["ErrorBody"]`, and takes a game
 * through every other operation — the game types, state, a dry run, and the
 * archive operations (export, import, audit, what-if, scores) with typed
 * bodies — under `strict`; and plays a game in which each seat waits on
 * its live stream instead of polling (`playByStreams`).
 *
 * The helpers of `helpers.ts` are what a caller uses beyond the generated
 * types: `throwErrors` throws every error answer as an `UmpireError`
 * (`catchTypedErrors` catches one for an illegal move), and `followGame`
 * follows a live stream as typed entries, resuming with `Last-Event-ID` when
 * the connection drops (`playByStreams`, `resumeAfterADroppedStream`).
 *
 * Every answer whose shape depends on the game is checked twice: at compile
 * time, narrowing it on `game` must give that game's own types (`viewOf`);
 * at run time, its JSON must conform to that game's schema in the spec
 * (`conforms`, with Ajv), never merely to another game's. Exits non-zero on
 * any failure. Run by openapi/test-clients.sh.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { Ajv2020 } from "ajv/dist/2020.js";
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/schema.js";
import { followGame, throwErrors, UmpireError, type StreamEntry } from "./helpers.js";

type Schemas = components["schemas"];

type ErrorBody = Schemas["ErrorBody"];
type AnyAction = Schemas["AnyAction"];
type AnyOptions = Schemas["AnyOptions"];

const GAMES: Array<{ game: Schemas["GameName"]; options: AnyOptions }> = [
  { game: "draft_cider", options: { players: 1 } },
  { game: "draft_cider", options: { players: 2 } },
  { game: "treeblox", options: {} },
  { game: "flower_fields", options: {} },
  { game: "arboretum", options: {} },
];
const MAX_MOVES = 2000;

const baseUrl: string = process.argv[2] ?? "";
if (!baseUrl) {
  console.error("usage: node dist/play.js BASE_URL");
  process.exit(2);
}
const api = createClient<paths>({ baseUrl });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

class Failure extends Error {}

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Failure(message);
}

// The spec the client was generated from, for checking answers at run time.
const spec: unknown = JSON.parse(
  readFileSync(new URL("../../../openapi.json", import.meta.url), "utf8"),
);
// OpenAPI 3.1 schemas are JSON Schema 2020-12, plus keywords Ajv does not
// know (`discriminator`, `example`): those are ignored, not errors.
const ajv = new Ajv2020({ strict: false, validateSchema: false, validateFormats: false, allErrors: false });
ajv.addSchema(spec as object, "spec");

/** `arboretum` -> `Arboretum`, `draft_cider` -> `DraftCider`. */
const prefixOf = (game: string) =>
  game
    .split("_")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");

/** That `body` is `game`'s own `shape` (`StateResponse` → the spec's
 * `ArboretumStateResponse`, …), down to every event and action in it. */
function conforms(body: unknown, game: string, shape: string, what: string): void {
  const name = `${prefixOf(game)}${shape}`;
  const validate = ajv.getSchema(`spec#/components/schemas/${name}`);
  expect(validate, `${what}: the spec has no schema ${name}`);
  if (!validate(body)) {
    throw new Failure(`${what}: not a ${name}: ${ajv.errorsText(validate.errors)}`);
  }
}

/** Compile time: narrowing an answer on `game` gives that game's own view
 * type; a game added to the spec but not here fails to compile. */
function viewOf(answer: Schemas["StateResponse"]): object {
  switch (answer.game) {
    case "arboretum": {
      const view: Schemas["ArboretumView"] = answer.state;
      return view;
    }
    case "draft_cider": {
      const view: Schemas["DraftCiderView"] = answer.state;
      return view;
    }
    case "flower_fields": {
      const view: Schemas["FlowerFieldsView"] = answer.state;
      return view;
    }
    case "treeblox": {
      const view: Schemas["TreebloxView"] = answer.state;
      return view;
    }
    default: {
      const unknown: never = answer;
      throw new Failure(`an answer of no known game: ${JSON.stringify(unknown)}`);
    }
  }
}

/** A small seeded RNG so that runs are repeatable. */
function rng(seed: number): (n: number) => number {
  let state = seed >>> 0 || 1;
  return (n) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

async function createGame(game: Schemas["GameName"], options: AnyOptions, seed: number) {
  const { data, error, response } = await api.POST("/v1/games", { body: { game, options, seed } });
  expect(data, `create_game ${game}: ${response.status} ${JSON.stringify(error)}`);
  return data;
}

async function playWholeGame(game: Schemas["GameName"], options: AnyOptions, seed: number): Promise<void> {
  const created = await createGame(game, options, seed);
  const seats = created.seat_tokens;
  const wanted = (options as { players?: number }).players;
  if (wanted !== undefined) {
    expect(Object.keys(seats).length === wanted, `${game}: ${Object.keys(seats).length} seats, not ${wanted}`);
  }
  const pick = rng(seed);
  const id = created.id;
  let moves = 0;
  let version = created.version;
  for (;;) {
    const summary = await api.GET("/v1/games/{id}", { params: { path: { id } } });
    expect(summary.data, `${game}: get_game ${summary.response.status}`);
    version = summary.data.version;
    if (summary.data.status.finished) break;
    expect(moves < MAX_MOVES, `${game}: not finished after ${MAX_MOVES} moves`);
    const toAct = [...summary.data.status.to_act].sort();
    const seat = toAct.length > 0 ? toAct[pick(toAct.length)] : undefined;
    const token = seat !== undefined ? seats[seat] : created.umpire_token;
    expect(token, `${game}: no token for seat ${seat}`);
    const what = `${game} v${version} as ${seat ?? "umpire"}`;
    const state = await api.GET("/v1/games/{id}/state", { params: { path: { id } }, headers: bearer(token) });
    expect(state.data, `${what}: get_game_state ${state.response.status}`);
    conforms(state.data, game, "StateResponse", `${what}: state`);
    viewOf(state.data);
    const legal = await api.GET("/v1/games/{id}/legal-actions", {
      params: { path: { id } },
      headers: bearer(token),
    });
    expect(legal.data, `${game}: list_legal_actions ${legal.response.status} ${JSON.stringify(legal.error)}`);
    conforms(legal.data, game, "LegalActions", `${what}: legal actions`);
    expect(legal.data.actions.length > 0, `${game}: seat ${seat} must act but has no legal action`);
    const action: AnyAction | undefined = legal.data.actions[pick(legal.data.actions.length)];
    expect(action, `${game}: no action picked`);
    const submitted = await api.POST("/v1/games/{id}/actions", {
      params: { path: { id }, header: { "Idempotency-Key": randomUUID() } },
      headers: bearer(token),
      body: { action },
    });
    if (!submitted.data) {
      const refusal: ErrorBody | undefined = submitted.error;
      throw new Failure(
        `${game}: seat ${seat}'s legal action ${JSON.stringify(action)} was refused: ` +
          `${submitted.response.status} ${refusal?.code}: ${refusal?.message}`,
      );
    }
    conforms(submitted.data, game, "ActionAccepted", `${what}: accepted`);
    moves += 1;
  }
  await readEverything(game, id, created.umpire_token, seats, version);
  console.error(`typescript client: ${game} ${JSON.stringify(options)} finished after ${moves} moves, ${version} events`);
}

/** Every viewer's state, final score and whole event log (page by page),
 * each conforming to the game's own schemas. */
async function readEverything(
  game: string,
  id: string,
  umpireToken: string,
  seats: Record<string, string>,
  version: number,
): Promise<void> {
  const viewers: Array<[string, Record<string, string>]> = [
    ["spectator", {}],
    ["umpire", bearer(umpireToken)],
    ...Object.entries(seats).map(([seat, token]): [string, Record<string, string>] => [`seat ${seat}`, bearer(token)]),
  ];
  for (const [viewer, headers] of viewers) {
    const what = `${game} as ${viewer}`;
    const state = await api.GET("/v1/games/{id}/state", { params: { path: { id } }, headers });
    expect(state.data, `${what}: get_game_state ${state.response.status}`);
    conforms(state.data, game, "StateResponse", `${what}: state`);
    const score = await api.GET("/v1/games/{id}/score", { params: { path: { id } }, headers });
    expect(score.data?.final === true, `${what}: no final score (${score.response.status})`);
    conforms(score.data, game, "ScoreResponse", `${what}: score`);
    let after = 0;
    let seen = 0;
    for (;;) {
      const page = await api.GET("/v1/games/{id}/events", {
        params: { path: { id }, query: { after, limit: 200 } },
        headers,
      });
      expect(page.data, `${what}: list_game_events ${page.response.status}`);
      conforms(page.data, game, "EventPage", `${what}: events after ${after}`);
      if (viewer === "umpire") {
        expect(page.data.events.every((event) => typeof event.hash === "string"), `${what}: no hashes`);
      }
      seen += page.data.events.length;
      if (page.data.next_after === undefined || page.data.next_after === null) break;
      after = page.data.next_after;
    }
    expect(seen === version, `${what}: ${seen} events, version ${version}`);
  }
}

/** A whole game in which each seat waits on its live stream instead of
 * polling: after every action each seat reads its stream until the new
 * version arrives, and the status in that event says who acts next. Each
 * `data:` must conform to the game's own StreamEvent; every stream ends
 * with `event: end`, reason `finished`. */
async function playByStreams(game: Schemas["GameName"], options: AnyOptions, seed: number): Promise<void> {
  const created = await createGame(game, options, seed);
  const id = created.id;
  const pick = rng(seed);
  const streams = new Map<string, AsyncGenerator<StreamEntry>>();
  for (const [seat, token] of Object.entries(created.seat_tokens)) {
    streams.set(seat, followGame({ baseUrl, gameId: id, token }));
  }
  const positions = new Map<string, number>();
  const waitFor = async (version: number): Promise<Schemas["StatusJson"]> => {
    let status: Schemas["StatusJson"] | undefined;
    for (const [seat, stream] of streams) {
      let seen = positions.get(seat) ?? 0;
      while (seen < version) {
        const next = await stream.next();
        expect(!next.done && next.value.kind === "event", `${game}: seat ${seat}'s stream ended early`);
        const streamed = next.value.event;
        conforms(streamed, game, "StreamEvent", `${game}: seat ${seat}'s stream`);
        expect(streamed.seq === seen + 1, `${game}: seat ${seat} got ${streamed.seq} after ${seen}`);
        seen = streamed.seq;
        status = streamed.status;
      }
      positions.set(seat, seen);
    }
    expect(status, `${game}: no seat saw version ${version}`);
    return status;
  };
  let version = created.version;
  let status = await waitFor(version);
  let moves = 0;
  while (!status.finished) {
    expect(moves < MAX_MOVES, `${game}: not finished after ${MAX_MOVES} moves`);
    const toAct = [...status.to_act].sort();
    const mover = toAct.length > 0 ? toAct[pick(toAct.length)] : undefined;
    const token = mover !== undefined ? created.seat_tokens[mover] : created.umpire_token;
    expect(token, `${game}: no token for ${mover}`);
    const legal = await api.GET("/v1/games/{id}/legal-actions", { params: { path: { id } }, headers: bearer(token) });
    const action = legal.data?.actions[pick(legal.data.actions.length)];
    expect(action, `${game}: no legal action for ${mover}`);
    const accepted = await api.POST("/v1/games/{id}/actions", {
      params: { path: { id } },
      headers: bearer(token),
      body: { action },
    });
    expect(accepted.data, `${game}: submit_action ${accepted.response.status}`);
    version = accepted.data.version;
    moves += 1;
    status = await waitFor(version);
  }
  for (const [seat, stream] of streams) {
    const next = await stream.next();
    expect(!next.done && next.value.kind === "end", `${game}: seat ${seat}'s stream did not end`);
    const end = next.value.end;
    expect(end.reason === "finished" && end.after === version, `${game}: seat ${seat}'s stream ended: ${JSON.stringify(end)}`);
    expect((await stream.next()).done, `${game}: seat ${seat}'s stream went on after its end`);
  }
  console.error(
    `typescript client: ${game} ${JSON.stringify(options)} played by ${streams.size} seats waiting on their streams, ${moves} moves, ${version} events`,
  );
}

/** A TCP proxy in front of the server that cuts its first connection after
 * `cutAfter` bytes of answer (mid-stream), as a network would, and passes
 * the later ones whole. Keeps the request heads it forwarded. */
function cuttingProxy(serverPort: number, cutAfter: number): Promise<{ port: number; requests: string[]; close: () => void }> {
  const requests: string[] = [];
  const server = createServer((client: Socket) => {
    const first = requests.length === 0;
    const upstream = connect(serverPort, "127.0.0.1");
    let sent = 0;
    client.once("data", (head: Buffer) => {
      requests.push(head.toString());
      upstream.write(head);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!first) {
        client.write(chunk);
        return;
      }
      const room = cutAfter - sent;
      client.write(chunk.subarray(0, room));
      sent += Math.min(room, chunk.length);
      if (sent >= cutAfter) {
        upstream.destroy();
        client.destroy();
      }
    });
    upstream.on("close", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({ port, requests, close: () => server.close() });
    });
  });
}

/** `followGame` through a connection cut mid-stream: it opens the stream
 * again with `Last-Event-ID` and gets every event exactly once, in order,
 * then the end of the finished game. */
async function resumeAfterADroppedStream(): Promise<void> {
  const created = await createGame("draft_cider", { players: 1 }, 21);
  const id = created.id;
  const seat = created.seat_tokens["0"];
  expect(seat, "draft_cider for one has a seat 0");
  let version = created.version;
  for (;;) {
    const summary = await api.GET("/v1/games/{id}", { params: { path: { id } } });
    expect(summary.data, `get_game ${summary.response.status}`);
    version = summary.data.version;
    if (summary.data.status.finished) break;
    const token = summary.data.status.to_act.length > 0 ? seat : created.umpire_token;
    const legal = await api.GET("/v1/games/{id}/legal-actions", { params: { path: { id } }, headers: bearer(token) });
    const action = legal.data?.actions[0];
    expect(action, "no legal action");
    await api.POST("/v1/games/{id}/actions", { params: { path: { id } }, headers: bearer(token), body: { action } });
  }
  const proxy = await cuttingProxy(Number(new URL(baseUrl).port), 4096);
  const seqs: number[] = [];
  let end: Schemas["StreamEnd"] | undefined;
  try {
    for await (const entry of followGame({ baseUrl: `http://127.0.0.1:${proxy.port}`, gameId: id, token: created.umpire_token })) {
      if (entry.kind === "end") end = entry.end;
      else seqs.push(entry.event.seq);
    }
  } finally {
    proxy.close();
  }
  const expected = Array.from({ length: version }, (_, index) => index + 1);
  expect(JSON.stringify(seqs) === JSON.stringify(expected), `events ${seqs.slice(0, 5).join(",")}… of ${version}: not each once, in order`);
  expect(end?.reason === "finished", `the stream ended with ${JSON.stringify(end)}`);
  expect(proxy.requests.length >= 2, "the connection was not cut");
  const resumed = (proxy.requests[1] ?? "").toLowerCase();
  expect(resumed.includes("last-event-id: "), `resumed without Last-Event-ID: ${resumed}`);
  console.error(`typescript client: a stream cut after 4096 bytes resumed with Last-Event-ID, ${seqs.length} events once each`);
}

/** Seat 1 plays seat 0's legal pick out of turn: through a client with
 * `throwErrors`, the 422 is thrown as an UmpireError carrying the status,
 * the stable `code`, the service's sentence as its message, the rule
 * section and where the service serves it (`ruleUrl`). Without it,
 * openapi-fetch returns the same answer as a typed `error` value. */
async function catchTypedErrors(): Promise<void> {
  const strict = createClient<paths>({ baseUrl });
  strict.use(throwErrors);
  const created = await createGame("draft_cider", { players: 2 }, 5);
  const first = created.seat_tokens["0"];
  const second = created.seat_tokens["1"];
  expect(first && second, "draft_cider for two has no seats 0 and 1");
  const id = created.id;
  const legal = await strict.GET("/v1/games/{id}/legal-actions", { params: { path: { id } }, headers: bearer(first) });
  const action = legal.data?.actions[0];
  expect(action, "no legal action for seat 0");
  let sentence: string | undefined;
  try {
    await strict.POST("/v1/games/{id}/actions", { params: { path: { id } }, headers: bearer(second), body: { action } });
    throw new Failure("an action out of turn was not refused");
  } catch (refused) {
    if (!(refused instanceof UmpireError)) throw refused;
    expect(refused.status === 422, `expected 422, got ${refused.status}`);
    expect(refused.code === "draft_cider.not_your_turn", `unexpected violation code ${refused.code}`);
    expect(refused.rule === "draft_cider §2", `unexpected rule ${refused.rule}`);
    expect(refused.ruleUrl === "/rules/draft_cider#s2", `unexpected rule_url ${refused.ruleUrl}`);
    expect(refused.message.endsWith("."), `not a sentence: ${refused.message}`);
    sentence = refused.message;
    console.error(
      `typescript client: 422 caught as UmpireError{status: ${refused.status}, code: ${refused.code}, rule: ${refused.rule}, ruleUrl: ${refused.ruleUrl}}`,
    );
  }
  const { data, error, response } = await api.POST("/v1/games/{id}/actions", {
    params: { path: { id } },
    headers: bearer(second),
    body: { action },
  });
  expect(data === undefined && response.status === 422, `expected 422, got ${response.status}`);
  // `error` is typed from the spec's responses: ErrorBody, so `code` is a string.
  const code: string | undefined = error?.code;
  expect(code === "draft_cider.not_your_turn", `the 422 value is not the typed ErrorBody: ${code}`);
  // The thrown error's message is the service's sentence, nothing added:
  // the status and the code are fields of their own.
  expect(error?.message === sentence, `UmpireError.message ${sentence} is not the body's ${error?.message}`);
  expect(error?.rule_url === "/rules/draft_cider#s2", `the body's rule_url: ${error?.rule_url}`);
  try {
    await strict.GET("/v1/games/{id}", { params: { path: { id: randomUUID() } } });
    throw new Failure("an unknown game was found");
  } catch (missing) {
    if (!(missing instanceof UmpireError)) throw missing;
    expect(missing.status === 404 && missing.code === "game_not_found", `unknown game: ${missing.message}`);
    expect(missing.rule === undefined && missing.ruleUrl === undefined, `a rule for an unknown game: ${missing.ruleUrl}`);
  }
}

/** Every operation a whole game does not use, with typed bodies: an
 * exported archive goes back into import (validated, then refused as
 * already stored) and into scores; a what-if patch is a plain object. */
async function everyOtherOperation(): Promise<void> {
  const types = await api.GET("/v1/game-types");
  expect(types.data?.games.length === 4, `list_game_types ${types.response.status}`);
  for (const gameType of types.data.games) {
    conforms(gameType, gameType.game, "GameType", `game type ${gameType.game}`);
  }
  const created = await createGame("arboretum", {}, 11);
  const id = created.id;
  const red = created.seat_tokens["red"];
  expect(red, "arboretum has a red seat");
  const umpire = bearer(created.umpire_token);
  const state = await api.GET("/v1/games/{id}/state", { params: { path: { id } }, headers: bearer(red) });
  expect(state.data?.game === "arboretum", `get_game_state ${state.response.status}`);
  conforms(state.data, "arboretum", "StateResponse", "get_game_state");
  // The check can fail: an Arboretum state is not a Treeblox one.
  let mistaken = false;
  try {
    conforms(state.data, "treeblox", "StateResponse", "an arboretum state as treeblox's");
    mistaken = true;
  } catch (refused) {
    expect(refused instanceof Failure, `conforms threw ${String(refused)}`);
  }
  expect(!mistaken, "an Arboretum state conforms to TreebloxStateResponse");
  const legal = await api.GET("/v1/games/{id}/legal-actions", { params: { path: { id } }, headers: bearer(red) });
  const action = legal.data?.actions[0];
  expect(action, "no legal action for red");
  const check = await api.POST("/v1/games/{id}/actions/check", {
    params: { path: { id } },
    headers: bearer(red),
    body: { action },
  });
  expect(check.data?.legal === true, `check_action ${check.response.status}`);
  conforms(check.data, "arboretum", "ActionCheck", "check_action");
  const accepted = await api.POST("/v1/games/{id}/actions", {
    params: { path: { id } },
    headers: bearer(red),
    body: { action },
  });
  expect(accepted.data, `submit_action ${accepted.response.status}`);

  const exported = await api.GET("/v1/games/{id}/export", { params: { path: { id } }, headers: umpire });
  expect(exported.data, `export_game ${exported.response.status}`);
  conforms(exported.data, "arboretum", "Archive", "export_game");
  const archive: Schemas["Archive"] = exported.data;
  expect(archive.events.length === accepted.data.version, `${archive.events.length} events exported`);
  const again = await api.POST("/v1/games/import", { body: archive });
  expect(again.response.status === 409 && again.error?.code === "game_already_exists", `import_game ${again.response.status}`);
  const audit = await api.GET("/v1/games/{id}/audit", { params: { path: { id } }, headers: umpire });
  expect(audit.data?.valid === true, `get_game_audit ${audit.response.status}`);
  conforms(audit.data, "arboretum", "AuditReport", "get_game_audit");
  const whatIf = await api.POST("/v1/games/{id}/what-if", {
    params: { path: { id } },
    headers: umpire,
    body: { options: { dm_advantage: "blue" } },
  });
  expect(whatIf.data?.game === "arboretum", `run_game_what_if ${whatIf.response.status}`);
  conforms(whatIf.data, "arboretum", "WhatIfReport", "run_game_what_if");
  const scores = await api.POST("/v1/scores", { body: [archive, archive] });
  expect(scores.data?.games === 2 && scores.data.rows.length === 2, `score_archives ${scores.response.status}`);
  console.error("typescript client: every other operation answered with its typed body");
}

let failures = 0;
for (const [index, { game, options }] of GAMES.entries()) {
  try {
    await playWholeGame(game, options, index + 1);
  } catch (failure) {
    failures += 1;
    console.error(`typescript client: FAIL ${game} ${JSON.stringify(options)}: ${String(failure)}`);
  }
}
const checks = [
  ["typed errors", catchTypedErrors],
  ["other operations", everyOtherOperation],
  ["streams", () => playByStreams("draft_cider", { players: 3 }, 12)],
  ["resumed stream", resumeAfterADroppedStream],
] as const;
for (const [name, check] of checks) {
  try {
    await check();
  } catch (failure) {
    failures += 1;
    console.error(`typescript client: FAIL ${name}: ${String(failure)}`);
  }
}
console.error(`typescript client: ${GAMES.length + checks.length - failures} passed, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);

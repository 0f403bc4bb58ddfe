/**
 * Typed errors and live streams for the generated TypeScript client (types
 * from openapi-typescript in generated/schema.d.ts, calls through
 * openapi-fetch).
 *
 * openapi-fetch answers an error as a value (`{ error, response }`), and a
 * live stream is a body that never ends, which the caller must read as
 * Server-Sent Events. This module adds what a caller needs beyond that:
 *
 * - `throwErrors`: an openapi-fetch middleware that throws every error
 *   answer as an `UmpireError` (the HTTP `status`, the stable `code`, the
 *   service's sentence as its `message`, and the `rule`, `ruleUrl` and
 *   `details` some carry):
 *
 *       const api = createClient<paths>({ baseUrl });
 *       api.use(throwErrors);
 *       try {
 *         await api.POST("/v1/games/{id}/actions", { params: { path: { id } }, headers, body: { action } });
 *       } catch (refused) {
 *         if (refused instanceof UmpireError) console.log(refused.status, refused.code, refused.ruleUrl);
 *       }
 *
 * - `followGame({ baseUrl, gameId, token })`: a game's events as it is
 *   played (GET /v1/games/{id}/stream), each typed as the spec's
 *   `StreamEvent` (narrow it on `game`), then the `StreamEnd` once the game
 *   is over. A dropped connection, or a stream the server ends for a reason
 *   that may resume (`idle`, `lifetime`, `error`), is opened again with
 *   `Last-Event-ID`, so that no event is missed or repeated:
 *
 *       for await (const entry of followGame({ baseUrl, gameId, token })) {
 *         if (entry.kind === "end") break; // reason "finished": the game is over
 *         console.log(entry.event.seq, entry.event.status.to_act);
 *       }
 */
import type { Middleware } from "openapi-fetch";
import type { components } from "./generated/schema.js";

type Schemas = components["schemas"];
export type ErrorBody = Schemas["ErrorBody"];
export type StreamEvent = Schemas["StreamEvent"];
export type StreamEnd = Schemas["StreamEnd"];

/** An error answer: `{code, message, rule?, rule_url?, details?}` and its
 * status. `message` is the service's sentence, as it sent it; the status and
 * the code are fields of their own. */
export class UmpireError extends Error {
  /** The HTTP status: 400, 401, 403, 404, 405, 408, 409, 413, 415, 422, 429, 500 or 503. */
  readonly status: number;
  /** Stable: one of the codes the spec lists as `ErrorBody.code`
   * (`version_conflict`, `arboretum.cell_not_adjacent`, …). */
  readonly code: ErrorBody["code"];
  /** The rule book section that decided a violation (`treeblox §2`). */
  readonly rule: string | undefined;
  /** Where the service serves that section, a path on it
   * (`/rules/treeblox#s2`): the body's `rule_url`. */
  readonly ruleUrl: string | undefined;
  /** Structured facts some errors carry (`{expected, actual}`). */
  readonly details: ErrorBody["details"];
  /** Seconds `Retry-After` asks to wait (503, 429, 409 `contended`), if it says. */
  readonly retryAfter: number | undefined;
  readonly body: ErrorBody;

  constructor(status: number, body: ErrorBody, retryAfter?: number) {
    super(body.message);
    this.name = "UmpireError";
    this.status = status;
    this.code = body.code;
    this.rule = body.rule ?? undefined;
    this.ruleUrl = body.rule_url ?? undefined;
    this.details = body.details;
    this.retryAfter = retryAfter;
    this.body = body;
  }
}

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== "object" || value === null) return false;
  const fields = value as Record<string, unknown>;
  return typeof fields.code === "string" && typeof fields.message === "string";
}

/** The `UmpireError` an answer is, or undefined for a success (or an
 * answer that is not the service's error envelope). Reads a clone. */
export async function errorOf(response: Response): Promise<UmpireError | undefined> {
  if (response.ok) return undefined;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  if (!isErrorBody(body)) return undefined;
  const retryAfter = Number(response.headers.get("retry-after") ?? Number.NaN);
  return new UmpireError(response.status, body, Number.isFinite(retryAfter) ? retryAfter : undefined);
}

/** openapi-fetch middleware: every error answer thrown as an `UmpireError`
 * (`api.use(throwErrors)`). */
export const throwErrors: Middleware = {
  async onResponse({ response }) {
    const error = await errorOf(response);
    if (error) throw error;
    return undefined;
  },
};

export interface FollowOptions {
  baseUrl: string;
  gameId: string;
  /** A seat's or the umpire's token; none for a spectator. */
  token?: string;
  /** Start after this version (default 0: from the first event). */
  after?: number;
  /** Attempts in a row that bring no event before giving up (default 5). */
  reconnects?: number;
  fetch?: typeof fetch;
}

/** One entry of a followed stream: an event, or the end of a finished game. */
export type StreamEntry = { kind: "event"; event: StreamEvent } | { kind: "end"; end: StreamEnd };

/**
 * The game's events after `after`, then each new one as it is played, then
 * the `StreamEnd` (reason `finished`) once every event of the finished game
 * has come, and nothing more. The stream is opened again with
 * `Last-Event-ID` (the version of the last event received) when its
 * connection drops or the server ends it for a reason that may resume, after
 * the `retry:` the server asked for (2 s): every event comes exactly once, in
 * order. An error answer (a bad token, an unknown game) is thrown as an
 * `UmpireError`; after `reconnects` attempts in a row that bring no event,
 * the last failure is thrown.
 */
export async function* followGame(options: FollowOptions): AsyncGenerator<StreamEntry> {
  const fetchStream = options.fetch ?? fetch;
  const reconnects = options.reconnects ?? 5;
  let lastId = options.after ?? 0;
  let retryMilliseconds = 2000;
  let failures = 0;
  for (;;) {
    // Whether this connection brought an event, or an end the server asks
    // to resume after: either way it was no failure.
    let progressed = false;
    let lost: unknown;
    try {
      const headers: Record<string, string> = { Accept: "text/event-stream" };
      if (options.token) headers.Authorization = `Bearer ${options.token}`;
      if (lastId > 0) headers["Last-Event-ID"] = String(lastId);
      const response = await fetchStream(
        `${options.baseUrl}/v1/games/${encodeURIComponent(options.gameId)}/stream`,
        { headers },
      );
      const error = await errorOf(response);
      if (error) throw error;
      if (!response.ok || !response.body) throw new Error(`the stream answered ${response.status}`);
      for await (const message of sseMessages(response.body)) {
        if (message.retry !== undefined) retryMilliseconds = message.retry;
        if (message.event === "end") {
          const end = JSON.parse(message.data) as StreamEnd;
          // Finished, or this seat's token reissued: nothing more for
          // this client.
          if (end.reason === "finished" || end.reason === "revoked") {
            yield { kind: "end", end };
            return;
          }
          progressed = true;
          break; // idle, lifetime or error: resume
        }
        if (message.data) {
          const event = JSON.parse(message.data) as StreamEvent;
          if (message.id !== undefined) lastId = message.id;
          progressed = true;
          yield { kind: "event", event };
        }
      }
    } catch (error) {
      if (error instanceof UmpireError) throw error;
      lost = error;
    }
    failures = progressed ? 0 : failures + 1;
    if (failures > reconnects) {
      throw new Error(`the stream of game ${options.gameId} failed ${failures} times in a row`, { cause: lost });
    }
    await new Promise((resolve) => setTimeout(resolve, retryMilliseconds));
  }
}

/** One Server-Sent Events message. */
interface Message {
  id: number | undefined;
  event: string | undefined;
  data: string;
  retry: number | undefined;
}

/** The messages of an event stream (comments, such as the heartbeats,
 * skipped), each dispatched at its blank line. */
async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<Message> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let message: Message = { id: undefined, event: undefined, data: "", retry: undefined };
  let data: string[] = [];
  try {
    for (;;) {
      let end: number;
      while ((end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end).replace(/\r$/, "");
        buffer = buffer.slice(end + 1);
        if (line === "") {
          message.data = data.join("\n");
          if (data.length > 0 || message.event !== undefined || message.retry !== undefined) yield message;
          message = { id: undefined, event: undefined, data: "", retry: undefined };
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "id" && /^\d+$/.test(value)) message.id = Number(value);
        else if (field === "event") message.event = value;
        else if (field === "data") data.push(value);
        else if (field === "retry" && /^\d+$/.test(value)) message.retry = Number(value);
      }
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

// The page's only way to the service: /v1 with the viewer's token as a
// header, or, for a seat this browser keeps, the seat's cookie, which the
// service set when the seat was taken (`join.js`) and which no script can
// read: it is HttpOnly, scoped to this game's API paths, and the API takes
// it only from this origin. A pasted token lives in this tab's session
// storage, never in a URL, and wins over the cookie.

const TOKEN_KEY = (gameId) => `umpire.token.${gameId}`;

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.body = body ?? {};
  }
}

export class Api {
  constructor(gameId) {
    this.gameId = gameId;
    this.base = `/v1/games/${gameId}`;
    this.anonymous = false;
    this.lookingAs = null;
  }

  // The token requests carry: none while the page shows the spectator's
  // view on purpose (`?as=spectator`), even when one is kept (and then no
  // cookie either: `credentials`).
  get token() {
    if (this.anonymous) return null;
    return sessionStorage.getItem(TOKEN_KEY(this.gameId));
  }

  set token(value) {
    this.anonymous = false;
    if (value) sessionStorage.setItem(TOKEN_KEY(this.gameId), value);
    else sessionStorage.removeItem(TOKEN_KEY(this.gameId));
  }

  headers(extra = {}) {
    const headers = { Accept: 'application/json', ...extra };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    return headers;
  }

  // Whether requests may carry the seat's cookie.
  get credentials() {
    return this.anonymous ? 'omit' : 'same-origin';
  }

  async request(path, { method = 'GET', body, signal } = {}) {
    const init = { method, headers: this.headers(), signal, cache: 'no-store', credentials: this.credentials };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(this.base + path, init);
    const text = await response.text();
    let parsed = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = { code: 'unreadable_answer', message: text.slice(0, 200) };
    }
    if (!response.ok) throw new ApiError(response.status, parsed);
    return parsed;
  }

  // The umpire looking as a seat or a spectator (`?as=` on the reads):
  // what that viewer is answered, with the umpire's own token.
  looking() {
    return this.lookingAs ? `&as=${encodeURIComponent(this.lookingAs)}` : '';
  }

  summary() { return this.request(''); }
  state(at) { return this.request(`/state?at=${at}${this.looking()}`); }
  score(at) { return this.request(`/score?at=${at}${this.looking()}`); }
  // A dry run at version `at`, decided as the caller, or, for the umpire,
  // as the seat `as`: nothing is stored.
  check(action, at, as) {
    const looking = as ? `&as=${encodeURIComponent(as)}` : '';
    return this.request(`/actions/check?at=${at}${looking}`, { method: 'POST', body: { action } });
  }
  // The whole archive, for the umpire (its hidden information and all).
  async exportArchive() {
    const response = await fetch(`${this.base}/export`, { headers: this.headers(), cache: 'no-store', credentials: this.credentials });
    if (!response.ok) {
      let body = null;
      try { body = await response.json(); } catch { body = null; }
      throw new ApiError(response.status, body);
    }
    return response.blob();
  }
  legalActions() { return this.request('/legal-actions'); }
  audit() { return this.request('/audit'); }
  whatIf(options) { return this.request('/what-if', { method: 'POST', body: { options } }); }
  // A one-time link that gives this seat to another device (10 minutes).
  deviceLink() { return this.request('/device-links', { method: 'POST' }); }
  // This browser leaves the seat: the service ends its cookie and clears it.
  leaveDevice() { return this.request('/page-session', { method: 'DELETE' }); }
  submit(action, expectedVersion) {
    return this.request('/actions', {
      method: 'POST',
      body: { action, expected_version: expectedVersion },
    });
  }

  // Every event after `after` this viewer may see, a page at a time.
  async eventsAfter(after) {
    const events = [];
    let position = after;
    for (;;) {
      const page = await this.request(`/events?after=${position}&limit=1000${this.looking()}`);
      events.push(...page.events);
      if (page.next_after == null || page.events.length === 0) return events;
      position = page.next_after;
    }
  }

  // Follows the live stream after `after`, calling `onEvent` for each
  // message and `onEnd` with the closing message. Reads it with fetch so
  // that the token travels as a header (EventSource cannot send one).
  // Returns a function that stops following.
  follow(after, { onEvent, onEnd, onFailure }) {
    const controller = new AbortController();
    (async () => {
      const response = await fetch(`${this.base}/stream?after=${after}${this.looking()}`, {
        headers: this.headers({ Accept: 'text/event-stream' }),
        signal: controller.signal,
        cache: 'no-store',
        credentials: this.credentials,
      });
      if (!response.ok || !response.body) throw new ApiError(response.status, null);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const message = parseMessage(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
          if (message.data == null) continue;
          const data = JSON.parse(message.data);
          if (message.event === 'end') {
            onEnd(data);
            return;
          }
          onEvent(data);
        }
      }
      onFailure(new Error('the stream closed'));
    })().catch((error) => {
      if (!controller.signal.aborted) onFailure(error);
    });
    return () => controller.abort();
  }
}

function parseMessage(block) {
  const message = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') message.data = message.data == null ? value : `${message.data}\n${value}`;
    else if (field === 'event' || field === 'id') message[field] = value;
  }
  return message;
}

// Rule citations as links to the served rule pages (/rules/<game>#…).
import { html } from './svg.js';

// A citation ("<game> §3") linked to its section when the service gave
// its address, else as text.
export function ruleLink(rule, ruleUrl) {
  return ruleUrl ? html('a', { class: 'rule-link', href: ruleUrl, text: rule }) : html('span', { class: 'rule', text: rule });
}

// Where a citation's section is served, as the service makes it
// (umpire_domain::violation::rule_url, the same mapping):
// ("<game>", "3.2") → "/rules/<game>#s3-2", ("<game>", "R") → "/rules/<game>#sR".
export function ruleUrl(page, section) {
  if (!/^[a-z0-9_]+$/.test(page ?? '') || !/^[0-9A-Za-z]+(\.[0-9A-Za-z]+)*$/.test(section ?? '')) return null;
  return `/rules/${page}#s${section.replaceAll('.', '-')}`;
}

// "§3", "§3.2", "§R", each maybe after the page it is of ("clock §4").
const CITATION = /(?:\b([a-z][a-z0-9_]*) )?§([0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)/g;

// `text` as an array of strings and links, to append to an element: each
// citation in it a link to its section. A bare "§3" is of `game`'s page; a
// page's name before it ("clock §4") is read as one when it is `game`, the
// clock, or in `pages` (the ids of /v1/game-types, when known); any other
// word before it stays text. Without a game, bare citations stay text.
export function linkCitations(text, game, pages = []) {
  const known = new Set([game, 'clock', ...pages].filter(Boolean));
  const out = [];
  let last = 0;
  for (const match of String(text ?? '').matchAll(CITATION)) {
    const [whole, named, section] = match;
    const page = named && known.has(named) ? named : game;
    const start = match.index + (named && !known.has(named) ? named.length + 1 : 0);
    const url = ruleUrl(page, section);
    if (!url) continue;
    if (start > last) out.push(text.slice(last, start));
    out.push(ruleLink(text.slice(start, match.index + whole.length), url));
    last = match.index + whole.length;
  }
  if (last < String(text ?? '').length) out.push(String(text).slice(last));
  return out;
}

// Rule citations as links to the served rule pages (/rules/<game>#…).
import { html } from './svg.js';

// A citation ("arboretum §3") linked to its section when the service gave
// its address, else as text.
export function ruleLink(rule, ruleUrl) {
  return ruleUrl ? html('a', { class: 'rule-link', href: ruleUrl, text: rule }) : html('span', { class: 'rule', text: rule });
}

// Playing by clicking. Each legal action is a path of steps — a card, then
// a cell; a bid's parts — given by the game's module (`steps`): a step with
// a `data-at` key drawn on the board is taken by clicking it there, any
// other step by its button here. The paths of all legal actions make a
// tree; the page marks the next choices (class `legal`), the ones taken
// (`chosen`), and offers to submit once a path names one action. Every
// legal action is reachable; the JSON stays a click away for developers.
import { html } from './svg.js';
import { atKey, clearMarks } from './marks.js';
import { actionInWords } from './timeline.js';

const stepId = (step) => step.at ?? `label:${step.label}`;

// The game's steps for an action, or one step named by the action itself.
function pathOf(game, action, ctx) {
  try {
    const steps = game.steps?.(action, ctx);
    if (Array.isArray(steps) && steps.length && steps.every((s) => s && (s.at || s.label))) {
      return steps.map((s) => ({ at: s.at ?? null, label: String(s.label ?? s.at) }));
    }
  } catch {
    // A shape the module does not know: offered whole below.
  }
  return [{ at: null, label: actionInWords(game, action, ctx) }];
}

export class Play {
  constructor({ panel, board, onSubmit }) {
    this.panel = panel;
    this.board = board;
    this.onSubmit = onSubmit;
    this.actions = [];
    this.paths = [];
    this.chosen = [];
    this.onBoard = new Map();
    // One listener for every board drawn: a click (or Enter) on a marked
    // element takes its step.
    const take = (event) => {
      const node = event.target.closest?.('[data-at].legal');
      if (!node || !this.onBoard.has(node.dataset.at)) return;
      if (event.type === 'keydown' && event.key !== 'Enter' && event.key !== ' ') return;
      event.preventDefault();
      this.choose(this.onBoard.get(node.dataset.at));
    };
    board.addEventListener('click', take);
    board.addEventListener('keydown', take);
  }

  // The legal actions at the latest version, for `ctx` (game, seats, seat,
  // view); starts a fresh choice.
  offer(game, actions, ctx) {
    this.game = game;
    this.ctx = ctx;
    this.actions = actions;
    this.paths = actions.map((action) => pathOf(game, action, ctx));
    this.chosen = [];
    this.render();
  }

  // How many legal actions a path of clicks names alone: all of them, when
  // the game's steps are right (the browser test holds it).
  reachable() {
    const seen = new Map();
    for (const path of this.paths) {
      const id = JSON.stringify(path.map(stepId));
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    return [...seen.values()].filter((n) => n === 1).length;
  }

  stop() {
    this.actions = [];
    this.chosen = [];
    this.onBoard.clear();
    clearMarks(this.board, 'legal');
    clearMarks(this.board, 'chosen');
  }

  choose(step) {
    this.chosen.push(step);
    this.render();
  }

  back(to) {
    this.chosen = this.chosen.slice(0, to);
    this.render();
  }

  // The actions whose path begins with the steps chosen.
  candidates() {
    const ids = this.chosen.map(stepId);
    const out = [];
    this.paths.forEach((path, index) => {
      if (path.length >= ids.length && ids.every((id, i) => stepId(path[i]) === id)) out.push(index);
    });
    return out;
  }

  // Re-marks a freshly drawn board with the current choice.
  remark() {
    clearMarks(this.board, 'legal');
    clearMarks(this.board, 'chosen');
    for (const node of this.board.querySelectorAll('[data-at][tabindex]')) node.removeAttribute('tabindex');
    this.onBoard.clear();
    if (!this.actions.length) return [];
    const depth = this.chosen.length;
    const next = new Map();
    for (const index of this.candidates()) {
      const path = this.paths[index];
      if (path.length > depth && !next.has(stepId(path[depth]))) next.set(stepId(path[depth]), path[depth]);
    }
    const buttons = [];
    for (const step of next.values()) {
      const nodes = step.at ? [...this.board.querySelectorAll(atKey(step.at))] : [];
      if (!nodes.length) {
        buttons.push(step);
        continue;
      }
      this.onBoard.set(step.at, step);
      for (const node of nodes) {
        node.classList.add('legal');
        node.setAttribute('tabindex', '0');
        node.setAttribute('role', 'button');
      }
    }
    for (const step of this.chosen) {
      if (step.at) for (const node of this.board.querySelectorAll(atKey(step.at))) node.classList.add('chosen');
    }
    return buttons;
  }

  render() {
    const buttons = this.remark();
    const candidates = this.candidates();
    const depth = this.chosen.length;
    const complete = candidates.filter((index) => this.paths[index].length === depth);
    const onBoard = this.onBoard.size;
    const total = this.actions.length;
    const prompt = total === 0
      ? 'Nothing to do now.'
      : `${total} legal action${total === 1 ? '' : 's'}${depth ? `; ${candidates.length} begin with your choice` : ''}.${onBoard ? ` Click a marked place on the board (${onBoard})${buttons.length ? ' or a choice below' : ''}.` : buttons.length ? ' Choose below.' : ''}`;
    this.panel.replaceChildren(
      html('p', { class: 'play-prompt', text: prompt }),
      depth ? html('p', { class: 'chosen-path' },
        'Chosen: ',
        ...this.chosen.map((step, i) => html('button', { type: 'button', class: 'crumb', title: 'choose again from here', onclick: () => this.back(i), text: step.label })),
        html('button', { type: 'button', class: 'restart', onclick: () => this.back(0), text: 'Start again' })) : null,
      buttons.length ? html('div', { class: 'choices', id: 'choices' }, buttons.map((step) => html('button', {
        type: 'button', class: 'choice', 'data-step': stepId(step), onclick: () => this.choose(step), text: step.label,
      }))) : null,
      complete.length ? html('div', { class: 'ready' }, complete.map((index) => html('button', {
        type: 'button', class: 'submit-choice', 'data-action': JSON.stringify(this.actions[index]),
        onclick: () => this.onSubmit(this.actions[index]),
        text: `Submit: ${actionInWords(this.game, this.actions[index], this.ctx)}`,
      }))) : null);
  }
}

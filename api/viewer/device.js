// A seat's panel on its own page: this browser holds the seat (by the
// seat's cookie, which every tab of the game and the browser after a
// restart share, or by a token pasted into this tab), a one-time link that
// takes the seat to another device, and leaving this device.
//
//   import { devicePanel } from './device.js';
//   box.replaceChildren(devicePanel(api, 'dark', { onLeft }));   // api: Api
//
// The link works once, within 10 minutes; the device that made it keeps
// the seat until it leaves (docs/seats.md).

import { ensureLinkStyles, linkRow } from './links.js';

function element(tag, attributes = {}, text = '') {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text) node.textContent = text;
  return node;
}

// The time of day `iso` names, as this browser writes it (14:05).
function clockTime(iso) {
  return new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

export function devicePanel(api, seat, { onLeft }) {
  ensureLinkStyles();
  const panel = element('div', { class: 'device-panel' });
  const byCookie = !api.token;
  const held = element('p', { class: 'device-held', 'data-kept': byCookie ? 'cookie' : 'token' },
    byCookie
      ? `This browser keeps seat ${seat}: every tab of this game, and after a restart.`
      : `This tab shows seat ${seat} by the token pasted into it.`);
  const another = element('button', { type: 'button', id: 'device-link' }, 'Use this seat on another device');
  const leave = element('button', { type: 'button', id: 'leave-device' }, 'Leave this device');
  const controls = element('p', { class: 'device-controls' });
  controls.append(another, leave);
  const said = element('p', { role: 'status', class: 'device-said' });
  const links = element('ul', { class: 'links' });

  another.addEventListener('click', async () => {
    another.disabled = true;
    try {
      const link = await api.deviceLink();
      said.textContent = `Open this link on your other device before ${clockTime(link.expires_at)}. It works once, `
        + `and only for 10 minutes. This device keeps seat ${seat} too, until you leave it.`;
      said.dataset.expiresAt = link.expires_at;
      links.replaceChildren(linkRow(`seat ${seat}`, link.link, { id: 'device-link-url' }));
    } catch (error) {
      said.textContent = error.message;
      links.replaceChildren();
    } finally {
      another.disabled = false;
    }
  });

  leave.addEventListener('click', async () => {
    if (!confirm(`Leave this device? This browser stops being seat ${seat}, in every tab. To sit here again you need a new link: from the umpire, or made by seat ${seat} on another device.`)) return;
    leave.disabled = true;
    try {
      await api.leaveDevice();
      onLeft(`This browser has left seat ${seat}. Showing the spectator's view.`);
    } catch (error) {
      said.textContent = error.message;
      leave.disabled = false;
    }
  });

  panel.append(held, controls, said, links);
  return panel;
}

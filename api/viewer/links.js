// A link shown with a copy button, for the pages that hand out links
// (new.js, seats.js, device.js), and the desk's link to a version.

// The links' styles (seats.css), loaded once into whatever page shows them.
export function ensureLinkStyles() {
  if (document.querySelector('link[href="/viewer/seats.css"]')) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = '/viewer/seats.css';
  document.head.append(link);
}

export function linkRow(label, href, { id } = {}) {
  const row = document.createElement('li');
  const who = document.createElement('span');
  who.className = 'who';
  who.textContent = label;
  const field = document.createElement('input');
  field.type = 'text';
  field.readOnly = true;
  field.value = new URL(href, location.origin).href;
  field.setAttribute('aria-label', `${label}: link`);
  if (id) field.id = id;
  const copy = document.createElement('button');
  copy.type = 'button';
  copy.textContent = 'Copy';
  copy.addEventListener('click', () => copyField(field, copy));
  row.append(who, field, copy);
  return row;
}

// Copies a link field's text, saying so on the button for a moment; where
// the clipboard is refused (an insecure origin), the field is selected and
// copied the old way.
export async function copyField(field, button) {
  try {
    await navigator.clipboard.writeText(field.value);
  } catch {
    field.select();
    document.execCommand('copy');
  }
  const was = button.dataset.label ?? button.textContent;
  button.dataset.label = was;
  button.textContent = 'Copied';
  setTimeout(() => { button.textContent = was; }, 1500);
}

// The desk's own address at a version and as a viewer (and whom the umpire
// looks as): what an umpire pastes into a ruling or a message. No token is
// ever in it; whoever opens it sees the game as their own credential lets.
export function deskLink({ at, viewer, lookingAs }) {
  const params = new URLSearchParams({ at: String(at), as: viewer });
  if (lookingAs) params.set('look', lookingAs);
  return new URL(`${location.pathname}?${params}`, location.origin).href;
}

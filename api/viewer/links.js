// A link shown with a copy button, for the pages that hand out links
// (new.js, seats.js, device.js).

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
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.value);
    } catch {
      field.select();
      document.execCommand('copy');
    }
    copy.textContent = 'Copied';
    setTimeout(() => { copy.textContent = 'Copy'; }, 1500);
  });
  row.append(who, field, copy);
  return row;
}

// A secret shown once (a new API key, a webhook signing secret): copy button, "I have stored it", and
// gone from the page for good when dismissed or when the person moves elsewhere. The server never
// shows it again, so there is nothing to re-fetch.
import { byId, copyFrom, show } from './dom.js';

/** Binds the `#<prefix>-secret-box` markup that sections/api.ts renders. */
export function secretBox(prefix: string): { reveal(secret: string): void; hide(): void } {
  const box = byId(`${prefix}-secret-box`);
  const value = byId(`${prefix}-secret-value`);
  const copy = byId(`${prefix}-copy-secret`);
  const hide = () => {
    value.textContent = '';
    show(box, false);
  };
  copy.addEventListener('click', () => copyFrom(value, copy));
  byId(`${prefix}-dismiss-secret`).addEventListener('click', hide);
  return {
    reveal(secret: string) {
      value.textContent = secret;
      show(box, true);
      box.scrollIntoView({ block: 'center', behavior: 'smooth' });
      copy.focus({ preventScroll: true });
    },
    hide,
  };
}

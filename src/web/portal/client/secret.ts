// A secret shown once (a new API key, a webhook signing secret): copy button, "I have stored it", and
// gone from the page for good when dismissed or when the person moves elsewhere. The server never
// shows it again, so there is nothing to re-fetch.
import { secretBoxIds } from '../portal.ids.js';
import { byId, copyFrom, show } from './dom.js';

/** Binds the `#<prefix>-secret-box` markup that sections/api.ts renders. */
export function secretBox(prefix: 'key' | 'webhook'): { reveal(secret: string): void; hide(): void } {
  const id = secretBoxIds(prefix);
  const box = byId(id.box);
  const value = byId(id.value);
  const copy = byId(id.copy);
  const hide = () => {
    value.textContent = '';
    show(box, false);
  };
  copy.addEventListener('click', () => copyFrom(value, copy));
  byId(id.dismiss).addEventListener('click', hide);
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

/** RFC 5321's limit of a forward path: no mail system delivers to a longer address. */
export const SUPPORT_EMAIL_MAX_CHARS = 254;
export const SUPPORT_URL_MAX_CHARS = 2048;

/** What the API and the portal say when a support contact is refused. */
export const SUPPORT_CONTACT_RULE = `The support contact must be an email address such as help@example.com (at most ${SUPPORT_EMAIL_MAX_CHARS} characters) or an https URL without a user name or password, such as https://example.com/help (at most ${SUPPORT_URL_MAX_CHARS} characters).`;

// The address shape of HTML's <input type="email">, with a dot in the domain: a buyer is sent there, so
// a host on the merchant's own network (name@localhost) is no use to them.
const LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
const EMAIL = new RegExp(`^[a-zA-Z0-9.!#$%&'*+/=?^_\`{|}~-]{1,64}@${LABEL}(?:\\.${LABEL})+$`);

/**
 * The support contact as it is stored — the email address as written, or the https URL in the URL
 * parser's spelling (lowercase host, percent-encoded path), which is what a link to it opens — or
 * undefined when it is neither. Surrounding spaces are dropped. Pure; never throws.
 */
export function normaliseSupportContact(raw: string): string | undefined {
  const text = raw.trim();
  if (EMAIL.test(text)) return text.length <= SUPPORT_EMAIL_MAX_CHARS ? text : undefined;
  return normaliseHttpsUrl(text);
}

function normaliseHttpsUrl(text: string): string | undefined {
  // Checked on the text as sent: the parser drops tabs and newlines inside a URL silently.
  if (text.length > SUPPORT_URL_MAX_CHARS || !/^https:\/\/\S+$/i.test(text)) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  // Credentials in a link would be shown to every buyer; a host without a dot is on no public network.
  if (url.protocol !== 'https:' || url.username || url.password || !url.hostname.includes('.')) return undefined;
  return url.href.length <= SUPPORT_URL_MAX_CHARS ? url.href : undefined;
}

/**
 * The link a page puts behind a stored support contact: `mailto:` for an email address (its local part
 * percent-encoded, so `?` or `#` in it cannot start a query), the URL itself for an https URL.
 */
export function supportContactHref(contact: string): string {
  if (contact.startsWith('https://')) return contact;
  const at = contact.lastIndexOf('@');
  return `mailto:${encodeURIComponent(contact.slice(0, at))}${contact.slice(at)}`;
}

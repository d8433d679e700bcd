import ipaddr from 'ipaddr.js';
import { isIP, isIPv4 } from 'node:net';
import { AppError } from '../../shared/errors.js';

/**
 * Where a webhook may be sent (the SSRF guard, docs/webhooks.md). Pure rules, no I/O: the sender resolves names and
 * asks `resolvedAddressesAllowed`; configuration asks `parseWebhookEndpoint`.
 */

export const MAX_ENDPOINT_LENGTH = 2048;

/** Every v6 address a receiver may have lies here (RFC 4291 global unicast); the rest is special or unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/*
 * Ranges refused even where ipaddr.js would say 'unicast'. ipaddr.js 2.5 already names every one (or, for
 * v6, they lie outside 2000::/3); the lists are kept so that the firm rule does not depend on the
 * library's table staying the same across versions.
 */
const REFUSED_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '255.255.255.255/32',
].map((range) => ipaddr.IPv4.parseCIDR(range));

const REFUSED_V6 = [
  '::/96', // unspecified, loopback and IPv4-compatible
  '::ffff:0:0/96', // IPv4-mapped: refused even for a public v4 (firm rule); the v4 form must be used
  '64:ff9b::/96',
  '64:ff9b:1::/48', // NAT64 reaches any v4 address, private ones included
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
  '2001::/32',
  '2001:db8::/32',
  '2002::/16',
  '3fff::/20', // Teredo, documentation, 6to4, documentation
].map((range) => ipaddr.IPv6.parseCIDR(range));

/**
 * True only for an address a webhook may be sent to: a canonical IPv4 in ipaddr.js range 'unicast' or an
 * IPv6 in range 'unicast' inside 2000::/3, and in none of the refused ranges. Anything unparseable,
 * ambiguous (`127.1`, `0x7f.0.0.1`: the WHATWG URL parser has already normalised those) or zoned is false.
 */
export function isPublicAddress(address: string): boolean {
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) {
    const v4 = ipaddr.IPv4.parse(address);
    return v4.range() === 'unicast' && !REFUSED_V4.some((range) => v4.match(range));
  }
  if (!ipaddr.IPv6.isValid(address)) return false;
  const v6 = ipaddr.IPv6.parse(address);
  if (v6.zoneId !== undefined) return false;
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_V6) && !REFUSED_V6.some((range) => v6.match(range));
}

/** The IP literal of a URL hostname (`[::1]` → `::1`, `1.2.3.4` stays), or undefined for a name. */
export function ipLiteralOf(hostname: string): string | undefined {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  return isIPv4(hostname) ? hostname : undefined;
}

function invalid(message: string): never {
  throw new AppError('invalid_webhook_endpoint', message);
}

/**
 * Said with each refusal a receiver on the developer's own machine runs into: the operator's switch for
 * it, which nothing else in the answer would reveal.
 */
const LOCAL_RECEIVER_HINT =
  ' For a receiver on this machine or a private network (development), the operator can set WEBHOOK_ALLOW_PRIVATE=true.';

/**
 * Checks a webhook endpoint as configured and returns it normalised. Without `allowPrivate`: an absolute
 * `https` URL on port 443, no credentials, no fragment, at most 2048 characters, a host that is a dotted
 * public name or a public IP literal. With `allowPrivate` (development only): `http` or `https`, any port,
 * any host; credentials and fragments are still refused. Throws `invalid_webhook_endpoint`.
 */
export function parseWebhookEndpoint(raw: string, allowPrivate: boolean): URL {
  if (raw.length > MAX_ENDPOINT_LENGTH)
    invalid(`The webhook endpoint must be at most ${MAX_ENDPOINT_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    invalid('The webhook endpoint must be an absolute URL.');
  }
  if (url.href.length > MAX_ENDPOINT_LENGTH)
    invalid(`The webhook endpoint must be at most ${MAX_ENDPOINT_LENGTH} characters.`);
  if (url.username !== '' || url.password !== '')
    invalid('The webhook endpoint must not contain a username or password.');
  // `https://h/#` has an empty `hash`, so look at the input too.
  if (url.hash !== '' || raw.includes('#')) invalid('The webhook endpoint must not contain a fragment (#).');

  if (allowPrivate) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') invalid('The webhook endpoint must use http or https.');
    return url;
  }
  if (url.protocol !== 'https:') invalid(`The webhook endpoint must use https.${LOCAL_RECEIVER_HINT}`);
  // The parser drops an explicit default port, so an empty port is exactly 443.
  if (url.port !== '') invalid(`The webhook endpoint must use port 443.${LOCAL_RECEIVER_HINT}`);

  const literal = ipLiteralOf(url.hostname);
  if (literal !== undefined) {
    if (!isPublicAddress(literal))
      invalid(`The webhook endpoint must not point to a private, loopback or reserved address.${LOCAL_RECEIVER_HINT}`);
    return url;
  }
  const name = url.hostname.replace(/\.+$/, '');
  if (name === 'localhost' || name.endsWith('.localhost'))
    invalid(`The webhook endpoint must not point to localhost.${LOCAL_RECEIVER_HINT}`);
  if (!name.includes('.')) invalid('The webhook endpoint host must be a fully qualified domain name.');
  return url;
}

/**
 * Whether a DNS answer may be contacted: every address must be public (one private address is enough
 * to refuse the whole answer), unless private receivers are allowed. An empty answer is never usable.
 */
export function resolvedAddressesAllowed(
  addresses: readonly { readonly address: string; readonly family: number }[],
  allowPrivate: boolean,
): boolean {
  if (addresses.length === 0) return false;
  return addresses.every(({ address }) => (allowPrivate ? isIP(address) !== 0 : isPublicAddress(address)));
}

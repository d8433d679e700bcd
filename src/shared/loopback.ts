/**
 * An http address on this machine (localhost, 127.0.0.1 or [::1], any port): where a merchant's own site
 * runs during local development. Taken as a checkout return address only where private webhook
 * receivers are too (WEBHOOK_ALLOW_PRIVATE, the local demo's default).
 */
export function isLoopbackHttp(url: URL): boolean {
  return (
    url.protocol === 'http:' &&
    (url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]')
  );
}

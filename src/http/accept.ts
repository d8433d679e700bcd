/** Media ranges a JSON answer satisfies. */
const JSON_RANGES = ['application/json', 'application/*', '*/*'];

/**
 * Whether a request's Accept header asks for `mediaType` rather than JSON: only when `mediaType` is named
 * and weighs more than JSON (`application/json`, `application/*` or `*\/*`). A browser sends
 * `text/html,…,*\/*;q=0.8`; API clients and curl get JSON.
 */
export function prefersOverJson(accept: string | undefined, mediaType: string): boolean {
  if (!accept) return false;
  let wanted = 0;
  let json = 0;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    if (range.trim() === mediaType) wanted = Math.max(wanted, weight);
    if (JSON_RANGES.includes(range.trim())) json = Math.max(json, weight);
  }
  return wanted > 0 && wanted > json;
}

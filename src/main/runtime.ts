/** The oldest Node.js release line the service runs and is tested on; `engines` in package.json says the same. */
export const MINIMUM_NODE = [20, 19, 0] as const;

/**
 * Why this Node.js cannot run the service, or undefined when it can. Checked first at start, so that an
 * old runtime stops with this sentence instead of a syntax or module error from deep inside a dependency.
 */
export function unsupportedNode(version: string = process.versions.node): string | undefined {
  const parts = version.split('.').map((part) => Number.parseInt(part, 10));
  for (let index = 0; index < MINIMUM_NODE.length; index++) {
    const have = parts[index] ?? 0;
    const need = MINIMUM_NODE[index]!;
    if (have > need) return undefined;
    if (have < need)
      return `Node.js ${version} is too old: the Invoice Service needs Node.js ${MINIMUM_NODE.join('.')} or newer.`;
  }
  return undefined;
}

/** A promise and the function that resolves it: holds a piece of work until the test lets it go. */
export function deferred() {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

/**
 * Pages read before they are asked for. A reader catching up on the feed asks for page after page,
 * each only once it has taken in the one before; reading the next page meanwhile takes the database's
 * part of it off the reader's path. Entries are few and short-lived: a reader that stops leaves at most
 * one page behind, dropped when it grows old or when newer entries push it out.
 *
 * A page read ahead is still checked against the workspace before it is served (see the service), so it
 * is only ever the answer a fresh read would give.
 */
export class ReadAhead<Page> {
  private readonly entries = new Map<string, { readonly page: Promise<Page | undefined>; readonly at: number }>();

  constructor(
    private readonly options: {
      readonly maxEntries: number;
      readonly maxAgeMs: number;
      readonly now?: () => number;
    },
  ) {}

  /** Starts reading the page under `key`. A failed read is forgotten: the reader then reads afresh. */
  start(key: string, read: () => Promise<Page>): void {
    if (this.entries.has(key)) return;
    while (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { page: read().catch(() => undefined), at: this.now() });
  }

  /** The page read ahead under `key`, once (undefined when there is none, it failed or it is too old). */
  async take(key: string): Promise<Page | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (this.now() - entry.at > this.options.maxAgeMs) return undefined;
    return entry.page;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Resolves once every read started so far has finished. */
  async settled(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => entry.page));
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

/**
 * At most `width` callers at a time, the others waiting their turn in order of arrival. For work that
 * would otherwise wait for a lock while holding something scarce: settlements of one relayer account
 * queue on its nonce row's lock, each holding a pooled connection meanwhile; waiting here they hold none.
 */
export class Turns {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly width: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.width) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active += 1;
    try {
      return await work();
    } finally {
      // The turn passes straight to the next caller, so a newcomer never jumps the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}

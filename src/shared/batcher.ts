/**
 * Turns many small calls into few batched ones without a timer: an item submitted while no batch is
 * running goes out at once, alone; items submitted while one is running wait for it and go out
 * together in the next. Idle, nothing waits; busy, a round trip serves many callers.
 *
 * `run` answers each item at the same index; a rejection rejects every item of its batch.
 */
export class Batcher<Item, Answer> {
  private queue: Pending<Item, Answer>[] = [];
  private running = 0;

  constructor(
    private readonly run: (items: Item[]) => Promise<readonly Answer[]>,
    private readonly options: {
      readonly maxBatch?: number;
      readonly concurrency?: number;
      /** While a batch runs, another goes only once this many items wait (or when it ends): not a trickle of small ones. */
      readonly minBatchWhileBusy?: number;
    } = {},
  ) {}

  submit(item: Item): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.queue.length === 0 || this.running >= (this.options.concurrency ?? 1)) return;
    if (this.running > 0 && this.queue.length < (this.options.minBatchWhileBusy ?? 1)) return;
    const batch = this.queue.splice(0, this.options.maxBatch ?? 500);
    this.running++;
    void this.send(batch).finally(() => {
      this.running--;
      this.next();
    });
  }

  private async send(batch: Pending<Item, Answer>[]): Promise<void> {
    try {
      const answers = await this.run(batch.map((pending) => pending.item));
      if (answers.length !== batch.length) throw new Error(`a batch of ${batch.length} got ${answers.length} answers`);
      batch.forEach((pending, index) => pending.resolve(answers[index]!));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  }
}

interface Pending<Item, Answer> {
  readonly item: Item;
  readonly resolve: (answer: Answer) => void;
  readonly reject: (error: unknown) => void;
}

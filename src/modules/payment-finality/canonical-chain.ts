import type { BlockHeader } from '../../chain/chain-port.js';

/** Reads the canonical block at a height, or the latest; undefined past the head. */
export type ReadHeader = (height: bigint | 'latest') => Promise<BlockHeader | undefined>;

/** Blocks read at once when the window grows downwards or over missed blocks. */
const PARALLEL_READS = 16;

/**
 * One network's canonical chain, followed block by block: a window of consecutive blocks, each the
 * parent of the next. While the chain only grows, a step costs one read (the latest block), however
 * many payments wait and however deep their blocks are. A reorganisation shows at the first new block
 * whose parent is not the block known below it; the replaced blocks are read again down to the one
 * both chains share. The window reaches down to the lowest height asked for, read once.
 */
export class CanonicalChain {
  private blocks = new Map<bigint, BlockHeader>();
  private low = 0n;
  private head = -1n;

  constructor(private readonly read: ReadHeader) {}

  /** Brings the window up to the latest block and down to `lowest`; answers the head and the hashes. */
  async follow(lowest: bigint): Promise<{ readonly head: bigint; readonly hashes: ReadonlyMap<bigint, string> }> {
    try {
      const latest = await this.read('latest');
      if (!latest) throw new Error('the node has no latest block');
      if (this.head < 0n || latest.number < this.low) this.restartAt(latest);
      else await this.advanceTo(latest);
      await this.extendDownTo(lowest);
    } catch (error) {
      // Read again from the new head at the next step rather than trust a window half updated.
      this.head = -1n;
      throw error;
    }
    for (; this.low < lowest && this.low < this.head; this.low++) this.blocks.delete(this.low);
    return { head: this.head, hashes: new Map([...this.blocks].map(([height, block]) => [height, block.hash])) };
  }

  private restartAt(latest: BlockHeader): void {
    this.blocks = new Map([[latest.number, latest]]);
    this.low = this.head = latest.number;
  }

  /** Reads the blocks after the known head up to `latest`, then links them down to the known ones. */
  private async advanceTo(latest: BlockHeader): Promise<void> {
    const fresh = [...(await this.readRange(this.head + 1n, latest.number - 1n)), latest];
    for (let index = 1; index < fresh.length; index++)
      if (fresh[index]!.parentHash !== fresh[index - 1]!.hash) throw new Error('the chain changed while it was read');
    // A chain grown shorter loses the blocks above its new head.
    for (let height = latest.number + 1n; height <= this.head; height++) this.blocks.delete(height);
    for (const block of fresh) this.blocks.set(block.number, block);
    this.head = latest.number;
    let child = fresh[0]!;
    while (child.number > this.low && this.blocks.get(child.number - 1n)?.hash !== child.parentHash) {
      const parent = await this.read(child.number - 1n);
      if (!parent) throw new Error(`the node has no block ${child.number - 1n} below its head`);
      this.blocks.set(parent.number, parent);
      child = parent;
    }
  }

  /** Reads the blocks below the window down to `lowest`, each checked to be the parent of the one above. */
  private async extendDownTo(lowest: bigint): Promise<void> {
    if (lowest < 0n || lowest >= this.low) return;
    const below = await this.readRange(lowest, this.low - 1n);
    for (let index = below.length - 1; index >= 0; index--) {
      const block = below[index]!;
      if (this.blocks.get(block.number + 1n)!.parentHash !== block.hash)
        throw new Error('the chain changed while its blocks were read');
      this.blocks.set(block.number, block);
      this.low = block.number;
    }
  }

  /** The blocks `from` to `to` (both included, none when `to` < `from`), in order. */
  private async readRange(from: bigint, to: bigint): Promise<BlockHeader[]> {
    const blocks: BlockHeader[] = [];
    for (let start = from; start <= to; start += BigInt(PARALLEL_READS)) {
      const count = Math.min(PARALLEL_READS, Number(to - start) + 1);
      const read = await Promise.all(Array.from({ length: count }, (_, index) => this.read(start + BigInt(index))));
      for (const block of read) {
        if (!block) throw new Error('the node lost a block below its head while it was read');
        blocks.push(block);
      }
    }
    return blocks;
  }
}

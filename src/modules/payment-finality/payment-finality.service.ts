import type { ChainPort } from '../../chain/chain-port.js';
import type { Network } from '../../chain/networks.js';
import { finalityBlocksOf } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { PaymentService } from '../payment-engine/index.js';
import { markFinal, unfinalPayments, type UnfinalPayment } from './payment-finality.repo.js';
import { CanonicalChain } from './canonical-chain.js';
import { judgeFinality } from './payment-finality.js';

/** Recorded payments looked at in one step of a network's watch, lowest blocks first. */
const BATCH = 500;

export interface PaymentFinalityDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly chain: ChainPort;
  readonly payments: Pick<PaymentService, 'revertPayment'>;
}

/**
 * Re-checks recorded payments until their block is the network's finalityBlocks deep, against the
 * network's canonical chain as followed block by block (CanonicalChain: one block read a step while no
 * reorganisation happens, whatever the number of payments). A payment whose block was replaced is
 * reverted only once its own receipt confirms the transaction is gone or sits in another block, so a
 * node that disagrees for a moment reverts nothing.
 */
export class PaymentFinalityWatch {
  /** Per network; a process that takes a network's watch over reads its window once. */
  private readonly chains = new Map<string, CanonicalChain>();

  constructor(private readonly deps: PaymentFinalityDeps) {}

  /** One step of the network's watch; answers how many payments it still waits for. */
  async check(network: Network): Promise<number> {
    const { db, clock } = this.deps;
    const pending = await unfinalPayments(db, network.name, BATCH);
    if (pending.length === 0) return 0;
    const blocks = await this.chainOf(network).follow(pending[0]!.blockNumber);
    const { final, suspect } = judgeFinality(pending, blocks, finalityBlocksOf(network));
    await markFinal(db, final, clock.now());
    for (const payment of suspect)
      if (await this.leftTheChain(network, payment))
        await this.deps.payments.revertPayment(payment.workspaceId, payment.id);
    return pending.length - final.length;
  }

  private chainOf(network: Network): CanonicalChain {
    let followed = this.chains.get(network.name);
    if (!followed) {
      followed = new CanonicalChain((height) => this.deps.chain.blockHeader(network, height));
      this.chains.set(network.name, followed);
    }
    return followed;
  }

  private async leftTheChain(network: Network, payment: UnfinalPayment): Promise<boolean> {
    const receipt = await this.deps.chain.receipt(network, payment.txHash);
    return receipt.kind !== 'mined' || receipt.blockHash !== payment.blockHash;
  }
}

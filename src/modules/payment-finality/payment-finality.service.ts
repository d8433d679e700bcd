import type { ChainPort } from '../../chain/chain-port.js';
import type { Network } from '../../chain/networks.js';
import { finalityBlocksOf } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { markFinal, unfinalPayments, type PaymentService, type UnfinalPayment } from '../payment-engine/index.js';
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
 * Re-checks recorded payments until their block is the network's finalityBlocks deep: one read of the
 * head and one block read per distinct height of the payments not final yet, whatever their number.
 * A payment whose block was replaced is reverted only once its own receipt confirms the transaction
 * is gone or sits in another block, so a node that disagrees for a moment reverts nothing.
 */
export class PaymentFinalityWatch {
  constructor(private readonly deps: PaymentFinalityDeps) {}

  /** One step of the network's watch; answers how many payments it still waits for. */
  async check(network: Network): Promise<number> {
    const { db, chain, clock } = this.deps;
    const pending = await unfinalPayments(db, network.name, BATCH);
    if (pending.length === 0) return 0;
    const blocks = await chain.canonicalBlocks(
      network,
      pending.map((payment) => payment.blockNumber),
    );
    const { final, suspect } = judgeFinality(pending, blocks, finalityBlocksOf(network));
    await markFinal(db, final, clock.now());
    for (const payment of suspect)
      if (await this.leftTheChain(network, payment))
        await this.deps.payments.revertPayment(payment.workspaceId, payment.id);
    return pending.length - final.length;
  }

  private async leftTheChain(network: Network, payment: UnfinalPayment): Promise<boolean> {
    const receipt = await this.deps.chain.receipt(network, payment.txHash);
    return receipt.kind !== 'mined' || receipt.blockHash !== payment.blockHash;
  }
}

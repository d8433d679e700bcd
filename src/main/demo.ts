import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Services } from './services.js';
import { PERMISSIONS } from '../modules/api-keys/index.js';
import { AppError } from '../shared/errors.js';
import { walletAddress, type WorkspaceId } from '../shared/ids.js';

export interface DemoAccess {
  readonly workspaceId: WorkspaceId;
  readonly wallet: string;
  /** Undefined when the stored key was revoked and no new one may be created yet. */
  readonly apiKey: string | undefined;
  readonly note?: string;
}

/**
 * The local demo's secrets, kept in DATA_DIR/demo.json (mode 0600, this machine only): the merchant
 * wallet that owns the demo workspace, a funded buyer, the relayer that pays gas on the local chain,
 * the operator account that receives credit purchases, and the demo workspace's id and API key. Reused across restarts, so restarts spend no key-creation
 * limits and the buyer keeps its address.
 */
interface DemoFile {
  walletPrivateKey: `0x${string}`;
  buyerPrivateKey: `0x${string}`;
  relayerPrivateKey: `0x${string}`;
  operatorPrivateKey: `0x${string}`;
  workspaceId?: string;
  apiKey?: string;
}

export class DemoSecrets {
  private constructor(
    private readonly file: string,
    private readonly data: DemoFile,
  ) {}

  static load(dataDir: string): DemoSecrets {
    mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, 'demo.json');
    const stored = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<DemoFile>) : {};
    const secrets = new DemoSecrets(file, {
      ...stored,
      walletPrivateKey: stored.walletPrivateKey ?? generatePrivateKey(),
      buyerPrivateKey: stored.buyerPrivateKey ?? generatePrivateKey(),
      relayerPrivateKey: stored.relayerPrivateKey ?? generatePrivateKey(),
      // Added to demo.json files written before credit purchases existed, on their next start.
      operatorPrivateKey: stored.operatorPrivateKey ?? generatePrivateKey(),
    });
    secrets.save();
    return secrets;
  }

  get buyer(): Address {
    return privateKeyToAccount(this.data.buyerPrivateKey).address;
  }

  /** The accounts of the built-in browser wallet: the workspace owner and the funded buyer. */
  browserAccounts(): { merchant: PrivateKeyAccount; buyer: PrivateKeyAccount } {
    return {
      merchant: privateKeyToAccount(this.data.walletPrivateKey),
      buyer: privateKeyToAccount(this.data.buyerPrivateKey),
    };
  }

  /** Receives the demo's credit purchases, unless OPERATOR_WALLET names another wallet. */
  get operator(): Address {
    return privateKeyToAccount(this.data.operatorPrivateKey).address;
  }

  get relayerPrivateKey(): `0x${string}` {
    return this.data.relayerPrivateKey;
  }

  /** The demo workspace with one all-permission API key; recreated when the database no longer has it. */
  async ensureWorkspace(services: Services): Promise<DemoAccess> {
    const wallet = walletAddress(privateKeyToAccount(this.data.walletPrivateKey).address);
    const owned = await services.workspaces.listOwnedBy(wallet);
    let workspace = owned.find((candidate) => candidate.id === this.data.workspaceId);
    if (!workspace) {
      workspace = await services.workspaces.create(
        wallet,
        {
          name: 'Demo shop',
          description: 'A workspace for trying the service locally.',
        },
        undefined,
      );
      this.data.workspaceId = workspace.id;
      delete this.data.apiKey;
      this.save();
    }
    if (this.data.apiKey && (await keyWorks(services, workspace.id, this.data.apiKey))) {
      return { workspaceId: workspace.id, wallet, apiKey: this.data.apiKey };
    }
    try {
      const { secret } = await services.apiKeys.create(workspace.id, { name: 'Demo key', permissions: PERMISSIONS });
      this.data.apiKey = secret;
      this.save();
      return { workspaceId: workspace.id, wallet, apiKey: secret };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { workspaceId: workspace.id, wallet, apiKey: undefined, note: error.message };
    }
  }

  private save(): void {
    writeFileSync(this.file, `${JSON.stringify(this.data, null, 2)}\n`, { mode: 0o600 });
  }
}

async function keyWorks(services: Services, workspaceId: WorkspaceId, key: string): Promise<boolean> {
  try {
    // Counted, like any client, under a name no request can have.
    await services.apiKeys.authenticate(workspaceId, key, 'local demo start');
    return true;
  } catch {
    return false;
  }
}

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Services } from '../http/services.js';
import { PERMISSIONS } from '../modules/api-keys/api-key.js';
import { AppError } from '../shared/errors.js';
import { walletAddress, type WorkspaceId } from '../shared/ids.js';

export interface DemoAccess {
  readonly workspaceId: WorkspaceId;
  readonly wallet: string;
  /** Undefined when the stored key was revoked and no new one may be created yet. */
  readonly apiKey: string | undefined;
  readonly note?: string;
}

interface DemoFile {
  walletPrivateKey: `0x${string}`;
  workspaceId?: string;
  apiKey?: string;
}

/**
 * The local demo's workspace: owned by a demo wallet whose key is kept in DATA_DIR/demo.json (0600,
 * local only), with one all-permission API key. Reused across restarts, so restarts do not spend the
 * key-creation limits; recreated when the database no longer has it.
 */
export async function ensureDemoWorkspace(services: Services, dataDir: string): Promise<DemoAccess> {
  const file = path.join(dataDir, 'demo.json');
  const stored: DemoFile = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoFile) : { walletPrivateKey: generatePrivateKey() };
  const wallet = walletAddress(privateKeyToAccount(stored.walletPrivateKey).address);
  const save = () => writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });

  const owned = await services.workspaces.listOwnedBy(wallet);
  let workspace = owned.find((candidate) => candidate.id === stored.workspaceId);
  if (!workspace) {
    workspace = await services.workspaces.create(wallet, { name: 'Demo shop', description: 'A workspace for trying the service locally.' });
    stored.workspaceId = workspace.id;
    delete stored.apiKey;
    save();
  }

  if (stored.apiKey && (await keyWorks(services, workspace.id, stored.apiKey))) {
    return { workspaceId: workspace.id, wallet, apiKey: stored.apiKey };
  }
  try {
    const { secret } = await services.apiKeys.create(workspace.id, { name: 'Demo key', permissions: PERMISSIONS });
    stored.apiKey = secret;
    save();
    return { workspaceId: workspace.id, wallet, apiKey: secret };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { workspaceId: workspace.id, wallet, apiKey: undefined, note: error.message };
  }
}

async function keyWorks(services: Services, workspaceId: WorkspaceId, key: string): Promise<boolean> {
  try {
    await services.apiKeys.authenticate(workspaceId, key);
    return true;
  } catch {
    return false;
  }
}

import type { Db, Executor } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import { newWorkspaceId, type WalletAddress, type WorkspaceId } from '../../shared/ids.js';
import { openAccount } from '../billing/index.js';
import type { Limit, RateLimitService } from '../rate-limits/index.js';
import { grantSubject, toWorkspace, type ProfileChanges, type Workspace } from './workspace.js';
import { checkDescription, checkProfileChanges } from './workspace.profile.js';
import {
  countWorkspacesOfWallet,
  findWorkspace,
  insertWorkspace,
  listWorkspacesOfWallet,
  lockWalletWorkspaces,
  updateWorkspace,
} from './workspace.repo.js';

export interface WorkspaceServiceDeps {
  readonly db: Db;
  /** Granted to a wallet's first workspace only: more workspaces must not mean more free credits. */
  readonly newWorkspaceCredits: number;
  readonly maxWorkspacesPerWallet: number;
  /** Wallets cost nothing: the grants to first workspaces are bounded per client address and day too. */
  readonly freeGrantsPerIpPerDay: number;
  readonly limits: RateLimitService;
}

export class WorkspaceService {
  private readonly freeGrantLimit: Limit;

  constructor(private readonly deps: WorkspaceServiceDeps) {
    this.freeGrantLimit = { name: 'workspaces.free-grant', max: deps.freeGrantsPerIpPerDay, windowSeconds: 86_400 };
  }

  /**
   * Creates a workspace bound to the signing wallet, with its credit account, in one transaction. The
   * count of the wallet's workspaces is read under a lock on the wallet, so concurrent creations on any
   * number of server processes can neither exceed the limit nor both take the first workspace's grant.
   * `clientAddress` is the request's client, whose free grants are counted in the same transaction
   * (so a refused creation counts none); undefined for a workspace the service's own process creates
   * (the local demo's), which is not counted.
   */
  async create(
    owner: WalletAddress,
    input: { name: string; description?: string },
    clientAddress: string | undefined,
  ): Promise<Workspace> {
    if (input.description !== undefined) checkDescription(input.description, 'portal');
    const { maxWorkspacesPerWallet, newWorkspaceCredits } = this.deps;
    return this.deps.db.transaction().execute(async (trx) => {
      await lockWalletWorkspaces(trx, owner);
      const owned = await countWorkspacesOfWallet(trx, owner);
      if (owned >= maxWorkspacesPerWallet) {
        throw new AppError(
          'workspace_limit_reached',
          `A wallet may own at most ${maxWorkspacesPerWallet} workspaces, and this one has reached the limit.`,
        );
      }
      const row = await insertWorkspace(trx, {
        id: newWorkspaceId(),
        name: input.name.trim(),
        description: input.description ?? '',
        wallet: owner,
      });
      const firstOfWallet = owned === 0;
      // Counted only when there is something to grant; a workspace over the limit is still created.
      const addressLimitReached =
        firstOfWallet && newWorkspaceCredits > 0 && !(await this.grantAllowed(trx, clientAddress));
      await openAccount(trx, row.id as WorkspaceId, {
        grant: firstOfWallet && !addressLimitReached ? newWorkspaceCredits : 0,
        firstOfWallet,
        addressLimitReached,
      });
      return toWorkspace(row);
    });
  }

  private async grantAllowed(trx: Executor, clientAddress: string | undefined): Promise<boolean> {
    if (clientAddress === undefined) return true;
    return (await this.deps.limits.hitWithin(trx, this.freeGrantLimit, grantSubject(clientAddress))).allowed;
  }

  async listOwnedBy(owner: WalletAddress): Promise<Workspace[]> {
    return (await listWorkspacesOfWallet(this.deps.db, owner)).map(toWorkspace);
  }

  /** The workspace when `owner` owns it; otherwise not_found, so ids of others' workspaces reveal nothing. */
  async getOwned(owner: WalletAddress, workspaceId: WorkspaceId): Promise<Workspace> {
    const row = await findWorkspace(this.deps.db, workspaceId);
    if (!row || row.wallet_address !== owner) throw new AppError('not_found', 'No such workspace for this wallet.');
    return toWorkspace(row);
  }

  /** The public profile buyers see: name, description, support contact and accent colour. */
  async update(workspaceId: WorkspaceId, changes: ProfileChanges, via: 'api' | 'portal'): Promise<Workspace> {
    const checked = checkProfileChanges(changes, via);
    // Nothing to change (`{}`) reads the workspace as it is: an UPDATE must set something.
    const nothing = Object.values(checked).every((value) => value === undefined);
    const row = nothing
      ? await findWorkspace(this.deps.db, workspaceId)
      : await updateWorkspace(this.deps.db, workspaceId, checked);
    if (!row) throw new AppError('not_found', 'No such workspace.');
    return toWorkspace(row);
  }
}

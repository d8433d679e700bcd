import type { Db } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import { newWorkspaceId, type WalletAddress, type WorkspaceId } from '../../shared/ids.js';
import { openAccount } from '../billing/index.js';
import { API_DESCRIPTION_MAX_BYTES, PORTAL_DESCRIPTION_MAX_CHARS, descriptionFits, toWorkspace, type Workspace } from './workspace.js';
import { findWorkspace, insertWorkspace, listWorkspacesOfWallet, updateWorkspace } from './workspace.repo.js';

export class WorkspaceService {
  constructor(private readonly deps: { db: Db; newWorkspaceCredits: number }) {}

  /** Creates a workspace bound to the signing wallet, with its credit grant, in one transaction. */
  async create(owner: WalletAddress, input: { name: string; description?: string }): Promise<Workspace> {
    if (input.description !== undefined) checkDescription(input.description, 'portal');
    return this.deps.db.transaction().execute(async (trx) => {
      const row = await insertWorkspace(trx, { id: newWorkspaceId(), name: input.name.trim(), description: input.description ?? '', wallet: owner });
      await openAccount(trx, row.id as WorkspaceId, this.deps.newWorkspaceCredits);
      return toWorkspace(row);
    });
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

  /** Name and description, shown to buyers on the checkout page. */
  async update(workspaceId: WorkspaceId, changes: { name?: string; description?: string }, via: 'api' | 'portal'): Promise<Workspace> {
    if (changes.description !== undefined) checkDescription(changes.description, via);
    // Nothing to change (`{}`) reads the workspace as it is: an UPDATE must set something.
    const nothing = changes.name === undefined && changes.description === undefined;
    const row = nothing ? await findWorkspace(this.deps.db, workspaceId) : await updateWorkspace(this.deps.db, workspaceId, { ...changes, ...(changes.name !== undefined && { name: changes.name.trim() }) });
    if (!row) throw new AppError('not_found', 'No such workspace.');
    return toWorkspace(row);
  }
}

function checkDescription(description: string, via: 'api' | 'portal'): void {
  if (!descriptionFits(description, via)) {
    const limit = via === 'api' ? `${API_DESCRIPTION_MAX_BYTES} UTF-8 bytes` : `${PORTAL_DESCRIPTION_MAX_CHARS} characters`;
    throw new AppError('description_too_long', `The workspace description is limited to ${limit} here.`);
  }
}

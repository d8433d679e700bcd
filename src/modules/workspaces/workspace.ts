import ipaddr from 'ipaddr.js';
import type { WalletAddress, WorkspaceId } from '../../shared/ids.js';

export interface Workspace {
  readonly id: WorkspaceId;
  readonly name: string;
  readonly description: string;
  /** Where buyers ask for help: an email address or an https URL (support-contact.ts); null: none. */
  readonly supportContact: string | null;
  /** `#rrggbb`, lowercase, for buyers' pages (accent-color.ts); null: the pages' own colour. */
  readonly accentColor: string | null;
  /** The one receiving address: the wallet that signed in and created the workspace. */
  readonly wallet: WalletAddress;
  readonly createdAt: Date;
}

/** A change of the public profile: a field left out stays as it is; null clears an optional one. */
export interface ProfileChanges {
  readonly name?: string;
  readonly description?: string;
  readonly supportContact?: string | null;
  readonly accentColor?: string | null;
}

export const NAME_MAX_CHARS = 100;
/** The portal's limit; the API accepts up to 2048 UTF-8 bytes. */
export const PORTAL_DESCRIPTION_MAX_CHARS = 500;
export const API_DESCRIPTION_MAX_BYTES = 2048;

/** The description limit depends on where it is written: 500 characters in the portal, 2048 UTF-8 bytes through the API. */
export function descriptionFits(description: string, via: 'api' | 'portal'): boolean {
  return via === 'api'
    ? Buffer.byteLength(description, 'utf8') <= API_DESCRIPTION_MAX_BYTES
    : [...description].length <= PORTAL_DESCRIPTION_MAX_CHARS;
}

export function toWorkspace(row: {
  id: string;
  name: string;
  description: string;
  support_contact: string | null;
  accent_color: string | null;
  wallet_address: string;
  created_at: Date;
}): Workspace {
  return {
    id: row.id as WorkspaceId,
    name: row.name,
    description: row.description,
    supportContact: row.support_contact,
    accentColor: row.accent_color,
    wallet: row.wallet_address as WalletAddress,
    createdAt: row.created_at,
  };
}

/**
 * Whose free grants are counted together: an IPv4 address, or the /64 network of an IPv6 address — one
 * subscriber commonly holds a whole /64, so counting single IPv6 addresses would bound nothing.
 */
export function grantSubject(clientAddress: string): string {
  if (!ipaddr.isValid(clientAddress)) return clientAddress;
  const address = ipaddr.process(clientAddress);
  if (address.kind() === 'ipv4') return address.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`;
}

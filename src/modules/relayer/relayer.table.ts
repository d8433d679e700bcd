export interface RelayerNonceTable {
  chain_id: number;
  relayer: string;
  next_nonce: bigint;
  behind_at: bigint | null;
  behind_since: Date | null;
}

// The module's tables in the one Database type every repository is written against (src/db/database.ts).
declare module '../../db/database.js' {
  interface Database {
    relayer_nonces: RelayerNonceTable;
  }
}

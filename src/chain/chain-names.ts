// Pure and without imports: the checkout's browser script bundles it too, so a live receipt names a chain as the page does.

/** How a chain reads to people: its usual name, and whether its tokens are worthless test tokens. */
export interface ChainName {
  readonly label: string;
  readonly testnet: boolean;
}

/**
 * The chains USDC is issued on that an operator is likely to configure, by chain id (the id decides, not
 * the operator's `name`, which is a free slug). 31337 is anvil's and Hardhat's default local chain.
 */
export const KNOWN_CHAINS: Readonly<Record<number, ChainName>> = {
  1: { label: 'Ethereum', testnet: false },
  10: { label: 'OP Mainnet', testnet: false },
  137: { label: 'Polygon', testnet: false },
  8453: { label: 'Base', testnet: false },
  42161: { label: 'Arbitrum One', testnet: false },
  43114: { label: 'Avalanche C-Chain', testnet: false },
  31337: { label: 'Local test chain', testnet: true },
  43113: { label: 'Avalanche Fuji', testnet: true },
  80002: { label: 'Polygon Amoy', testnet: true },
  84532: { label: 'Base Sepolia', testnet: true },
  421614: { label: 'Arbitrum Sepolia', testnet: true },
  11155111: { label: 'Ethereum Sepolia', testnet: true },
  11155420: { label: 'OP Sepolia', testnet: true },
};

/**
 * The name to show for a configured network. A chain not in the list keeps the operator's name and gets
 * no test badge: claiming "test" for real money would be the worse mistake.
 */
export function chainName(chainId: number, configuredName: string): ChainName {
  return KNOWN_CHAINS[chainId] ?? { label: configuredName, testnet: false };
}

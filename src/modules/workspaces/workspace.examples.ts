import type { OperationExamples } from '../../http/openapi-examples.js';
import { EXAMPLE_IDS } from '../../shared/example-ids.js';

const WORKSPACE = {
  id: EXAMPLE_IDS.workspace,
  name: 'Example Shop',
  description: 'Handmade ceramics.',
  supportContact: null,
  accentColor: null,
  wallet: EXAMPLE_IDS.wallet,
  createdAt: '2026-11-01T12:00:00.000Z',
} as const;

export const workspaceExamples = {
  list: { response: { workspaces: [WORKSPACE] } },
  create: { request: { name: 'Example Shop', description: 'Handmade ceramics.' }, response: WORKSPACE },
  update: {
    request: {
      name: 'Example Shop',
      description: 'Handmade ceramics, shipped from Lisbon.',
      supportContact: 'help@example.com',
      accentColor: '#0052FF',
    },
    response: {
      ...WORKSPACE,
      description: 'Handmade ceramics, shipped from Lisbon.',
      supportContact: 'help@example.com',
      accentColor: '#0052ff',
    },
  },
} satisfies Record<string, OperationExamples>;

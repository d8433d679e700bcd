import type { OperationExamples } from '../../http/openapi-examples.js';

const KEY = {
  id: 'key_01jd6q2c5v8n1k4x7t0m3b6r9p',
  name: 'server',
  permissions: ['invoices:create', 'invoices:read', 'payments:read'],
  recipient: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  prefix: 'isk_7Qm2',
  status: 'active',
  createdAt: '2026-11-01T12:05:00.000Z',
  lastUsedAt: '2026-11-14T09:30:00.000Z',
  revokedAt: null,
} as const;

export const apiKeyExamples = {
  list: { response: { keys: [KEY] } },
  create: {
    request: { name: 'server', permissions: ['invoices:create', 'invoices:read', 'payments:read'] },
    response: { ...KEY, lastUsedAt: null, secret: 'isk_7Qm2vX9kL4pT1nR8sD3fG6hJ0wE5yU2cB7aZ' },
  },
  revoke: { response: { ...KEY, status: 'revoked', revokedAt: '2026-11-20T16:00:00.000Z' } },
} satisfies Record<string, OperationExamples>;

import { expect, it } from 'vitest';
import { createTestApp } from '../support/app.js';
import { merchantOperations, runSecuritySuite } from '../support/security-suite.js';

const { app, database } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '100000' });
const operations = await merchantOperations(app);

it('finds the merchant API operations in the OpenAPI document', () => {
  expect(operations.map((operation) => `${operation.method} ${operation.path}`)).toContain(
    'GET /w/{workspaceId}/v1/billing',
  );
});

runSecuritySuite(app, database, operations);

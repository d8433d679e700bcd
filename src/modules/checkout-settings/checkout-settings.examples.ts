import type { OperationExamples } from '../../http/openapi-examples.js';

const ORIGINS = { origins: ['https://shop.example.com', 'https://www.example.com'] };

export const checkoutSettingsExamples = {
  read: { response: ORIGINS },
  update: { request: ORIGINS, response: ORIGINS },
} satisfies Record<string, OperationExamples>;

import Fastify from 'fastify';
import type { Scenario } from '../scenario.js';

const HelloBody = {
  type: 'object',
  properties: { hello: { type: 'string' } },
  required: ['hello'],
  additionalProperties: false,
} as const;

/**
 * The ceiling the other rows are divided by: what bare Fastify serves on this machine with the same
 * connections, a small JSON answer serialized through a response schema as our routes are.
 */
export const helloCeiling: Scenario = {
  name: 'ceiling: Fastify hello-world',
  measures: 'bare Fastify GET, no hooks, no database; JSON body through a response schema',
  async prepare() {
    const app = Fastify({ logger: false });
    app.get('/hello', { schema: { response: { 200: HelloBody } } }, async () => ({ hello: 'world' }));
    return {
      app,
      request: { method: 'GET', path: '/hello', headers: {} },
      stop: () => app.close(),
    };
  },
};

import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Gauge, Registry, collectDefaultMetrics, Histogram } from 'prom-client';
import { AppError } from '../shared/errors.js';
import { registerQueueMetrics } from './queue-metrics.js';
import { registerRelayerMetrics } from './relayer-metrics.js';
import { registerReplicaMetrics, replicaWarnings } from './replica-metrics.js';
import { relayerWarnings } from './relayer-readiness.js';
import { registerRpcMetrics } from './rpc-metrics.js';
import { rpcWarnings } from './rpc-readiness.js';
import type { Services } from './services.js';

/** Liveness, readiness and Prometheus metrics. Not part of the merchant API document. */
export function registerOps(app: FastifyInstance, services: Services): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerQueueMetrics(registry, services.db, app.log);
  registerRelayerMetrics(registry, services);
  registerRpcMetrics(registry, services);
  registerReplicaMetrics(registry, services);
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  const processes = services.processes;
  if (processes) {
    new Gauge({
      name: 'live_http_processes',
      help: 'Live HTTP processes (ROLE all or api) on this database; each allows its share of the API key and checkout rate limits',
      registers: [registry],
      collect() {
        this.set(processes.httpProcesses());
      },
    });
  }

  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: ids would explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });

  const hide = { hide: true } as const;

  app.get('/healthz', { schema: hide }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: hide }, async () => {
    try {
      await sql`SELECT 1`.execute(services.db);
    } catch {
      throw new AppError('service_unavailable', 'The database is not reachable.');
    }
    // A relayer running dry stops gasless payments only, and a provider or a read replica down only moves
    // calls or reads to the others: the service stays ready, and says why here.
    const warnings = [...rpcWarnings(services), ...replicaWarnings(services), ...(await relayerWarnings(services))];
    return { status: 'ready', ...(warnings.length > 0 && { warnings }) };
  });

  app.get('/metrics', { schema: hide }, async (_request, reply) => {
    reply.header('Content-Type', registry.contentType);
    return registry.metrics();
  });
}

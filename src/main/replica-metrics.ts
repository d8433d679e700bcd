import { Counter, Gauge, type Registry } from 'prom-client';
import type { Services } from './services.js';

/**
 * Where this process's routed reads (lists, search, exports, statements, the dashboard, the feed) went,
 * and each DATABASE_READ_URL replica's state at its last check. Labelled by host:port/database, never the
 * URL (its password). Nothing is registered without replicas.
 */
export function registerReplicaMetrics(registry: Registry, services: Pick<Services, 'readReplicas'>): void {
  const replicas = services.readReplicas;
  if (!replicas) return;
  new Counter({
    name: 'invoice_service_db_replica_reads_total',
    help: 'Statements of routed reads a read replica served',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { replica, reads } of replicas.status()) this.inc({ replica }, reads);
    },
  });
  new Counter({
    name: 'invoice_service_db_primary_reads_total',
    help: 'Statements of routed reads the primary served instead: every replica lagging (lagging) or down (down), or the replica failed the read (failed)',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, reads] of Object.entries(replicas.primaryStatus())) this.inc({ reason }, reads);
    },
  });
  new Gauge({
    name: 'invoice_service_db_replica_lag_seconds',
    help: 'How far a read replica was behind the primary at its last check (at most); absent while it is down',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { replica, lagMs } of replicas.status())
        if (lagMs !== undefined)
          this.set({ replica }, Number.isFinite(lagMs) ? lagMs / 1000 : Number.POSITIVE_INFINITY);
    },
  });
  new Gauge({
    name: 'invoice_service_db_replica_up',
    help: '1 while a read replica answers its checks as a standby, else 0',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { replica, up } of replicas.status()) this.set({ replica }, up ? 1 : 0);
    },
  });
}

/** What /readyz says of replicas that serve no reads now (the primary serves them instead). */
export function replicaWarnings(services: Pick<Services, 'readReplicas'>): string[] {
  return (services.readReplicas?.status() ?? []).flatMap(({ replica, up, lagMs, serving }) =>
    serving
      ? []
      : [
          up
            ? `read replica ${replica} is ${Number.isFinite(lagMs) ? `${lagMs} ms` : 'far'} behind the primary: its reads go to the primary until it catches up`
            : `read replica ${replica} does not answer: its reads go to the primary`,
        ],
  );
}

import pg from 'pg';

/**
 * A pg pool whose connections never crash the process when their session breaks (the server
 * restarted, an administrator ended the backend, a replica went away). pg emits `error` on the client
 * as well as failing its statements; the pool listens only while a client is idle, and an `error`
 * nobody listens to is thrown. So every client gets a listener for its whole life: the statements in
 * flight reject as they would anyway, and a client released after its connection broke is dropped by
 * the pool (it is no longer queryable) instead of being handed out again.
 */
export function openPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

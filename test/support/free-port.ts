import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The lowest port the kernel hands out by itself: to outgoing connections and to `listen(0)`. A port
 * below it is only ever taken by someone who asks for it by number.
 */
function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return Number(low) || 32_768;
  } catch {
    return 32_768;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port nothing listens on now, for a process that binds it a moment later and, after a kill, binds
 * it again. Drawn from below the ephemeral range: a port from `listen(0)` can be taken, while its
 * process is down, as the local port of any outgoing connection (a pool's, a client's), and the restart
 * then fails with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralRangeStart() - 1;
  const low = Math.min(10_000, high - 1_000);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port in ${low}–${high}`);
}

export interface BenchSettings {
  readonly connections: number;
  readonly durationSeconds: number;
  /** Load sent before each measured run and thrown away: JIT, pool connections, caches. */
  readonly warmupSeconds: number;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Read once by the runner. The upper bounds keep a load test bounded whatever the environment says. */
export function loadSettings(env: Env): BenchSettings {
  return {
    connections: integer(env, 'BENCH_CONNECTIONS', 32, 1, 256),
    durationSeconds: integer(env, 'BENCH_DURATION', 10, 1, 120),
    warmupSeconds: integer(env, 'BENCH_WARMUP', 2, 0, 30),
  };
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return value;
}

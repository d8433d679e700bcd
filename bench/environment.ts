import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/** Below this share of idle CPU before the run, the report warns that its numbers are suspect. */
const QUIET_IDLE_SHARE = 0.9;

/** Which code ran where, and how quiet the machine was: a number without these cannot be compared. */
export async function describeEnvironment(): Promise<string[]> {
  const cpus = os.cpus();
  const idle = await idleShare(1000);
  const lines = [
    `commit: ${commit()}`,
    `node:   ${process.version}`,
    `cpus:   ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown'}`,
    `date:   ${new Date().toISOString()}`,
    `idle:   ${Math.round(idle * 100)}% of CPU time in the second before the run`,
  ];
  // Other work takes cores from the server, PostgreSQL and the load generator alike.
  if (idle < QUIET_IDLE_SHARE)
    lines.push('WARNING: the machine was busy before the run; expect lower and noisier numbers.');
  return lines;
}

async function idleShare(ms: number): Promise<number> {
  const total = (cpus: os.CpuInfo[]) =>
    cpus.reduce((sum, { times: t }) => sum + t.user + t.nice + t.sys + t.idle + t.irq, 0);
  const idle = (cpus: os.CpuInfo[]) => cpus.reduce((sum, { times }) => sum + times.idle, 0);
  const before = os.cpus();
  await sleep(ms);
  const after = os.cpus();
  return (idle(after) - idle(before)) / Math.max(1, total(after) - total(before));
}

function commit(): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  let hash: string;
  try {
    hash = git('rev-parse', '--short', 'HEAD');
  } catch {
    return 'none (no commit yet, or not a git checkout)';
  }
  // Numbers from a dirty tree describe code the hash does not name.
  return git('status', '--porcelain') === '' ? hash : `${hash} + uncommitted changes`;
}

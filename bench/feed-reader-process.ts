import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readThroughApi, warmClient, type FeedTarget, type Traversal } from './feed-reader.js';

const ENTRY = fileURLToPath(import.meta.url);
const TIMEOUT_MS = 120_000;

/**
 * One pass of a reader that has read nothing yet: a process of its own, started for it, whose HTTP
 * client made one request first (`warmClient`). Every first read of the change-feed part is taken this
 * way, so the service's and the bare server's first reads meet readers in the same state.
 */
export async function firstReadInNewProcess(target: FeedTarget): Promise<Traversal> {
  const child = fork(ENTRY, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    return await new Promise<Traversal>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the feed reader did not finish within 120 s')), TIMEOUT_MS);
      child.once('message', (message) => {
        clearTimeout(timer);
        resolve(message as Traversal);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the feed reader exited with code ${code} before it reported`));
      });
      child.send(target);
    });
  } finally {
    child.kill();
  }
}

// Forked by firstReadInNewProcess: read once, report, exit.
if (process.send && process.argv[1] === ENTRY) {
  process.once('message', (target: FeedTarget) => {
    void (async () => {
      await warmClient(target);
      const traversal = await readThroughApi(target);
      process.send!(traversal, () => process.exit(0));
    })().catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
  });
}

/** What other modules may use of new blocks: the signal of jobs waiting for one, and its watcher. */
export { NEW_BLOCK, NewBlockWatcher, type NewBlockWatcherDeps } from './new-blocks.js';

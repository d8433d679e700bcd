import pretty from 'pino-pretty';
import type { LogFormat } from '../config/config.js';

/**
 * Where the service's log lines go: undefined for pino's own JSON lines on stdout (what a log collector
 * reads), or a pino-pretty stream that writes one readable line per entry, coloured on a terminal.
 * `auto` chooses by whether stdout is a terminal.
 */
export function logStream(
  format: LogFormat,
  stdout: NodeJS.WritableStream & { readonly isTTY?: boolean } = process.stdout,
) {
  const terminal = stdout.isTTY === true;
  if (format === 'json' || (format === 'auto' && !terminal)) return undefined;
  return pretty({
    destination: stdout === process.stdout ? 1 : stdout,
    // Written before the call returns, as pino's JSON lines are: nothing is lost when the process exits.
    sync: true,
    colorize: terminal,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
}

import { PassThrough } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { logStream } from '../../src/main/log-stream.js';

/** A stand-in for stdout: a terminal or not, collecting what is written. */
function output(isTTY: boolean) {
  const stream = Object.assign(new PassThrough(), { isTTY });
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  return { stream, text: () => chunks.join('') };
}

describe('log output', () => {
  it('is pino JSON lines when stdout is not a terminal, or with LOG_FORMAT=json', () => {
    expect(logStream('auto', output(false).stream)).toBeUndefined();
    expect(logStream('json', output(true).stream)).toBeUndefined();
  });

  it('is one readable line an entry on a terminal: time, level, message, fields', async () => {
    const out = output(true);
    const logger = pino({ level: 'info' }, logStream('auto', out.stream));
    logger.info({ workspaceId: 'ws_1' }, 'invoice service started');
    await new Promise((resolve) => setImmediate(resolve));
    const coloured = out.text();
    // eslint-disable-next-line no-control-regex
    const line = coloured.replace(/\u001b\[\d+m/g, '');
    expect(coloured).not.toBe(line);
    expect(line).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: invoice service started \{"workspaceId":"ws_1"\}\n$/);
    expect(line).not.toContain('"level"');
    expect(line.trimEnd().split('\n')).toHaveLength(1);
  });

  it('is readable without colours when LOG_FORMAT=pretty and stdout is a file or a pipe', async () => {
    const out = output(false);
    pino(logStream('pretty', out.stream)).warn('disk almost full');
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.text()).toMatch(/^\[[\d:.]+\] WARN: disk almost full\n$/);
  });

  it('is chosen by LOG_FORMAT, auto unless set', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: 'JSON' }).logFormat).toBe('json');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrowError(
      'LOG_FORMAT: expected one of auto, json, pretty, got "xml"',
    );
  });
});

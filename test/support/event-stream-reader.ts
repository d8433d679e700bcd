import http from 'node:http';

export interface StreamEvent {
  readonly event: string;
  readonly data: unknown;
}

/**
 * Opens a server-sent event stream at `url` and reads it as it arrives: its answer, the events so far
 * (each block's `event` and parsed `data`), `next(n)` to wait for the n-th, its end, and how to hang up.
 */
export function readEventStream(url: string, headers: Readonly<Record<string, string>> = {}) {
  const events: StreamEvent[] = [];
  let text = '';
  let waiters: (() => void)[] = [];
  let request: http.ClientRequest;
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    request = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, resolve);
    request.on('error', reject);
  });
  const ended = response.then(
    (res) =>
      new Promise<void>((resolve) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
            const block = text.slice(0, end);
            text = text.slice(end + 2);
            const found = /^event: (\w+)\ndata: (.*)$/m.exec(block);
            if (found) events.push({ event: found[1]!, data: JSON.parse(found[2]!) });
          }
          for (const wake of waiters) wake();
          waiters = [];
        });
        res.on('end', () => resolve());
        res.on('close', () => resolve());
      }),
  );
  const next = async (count: number, timeoutMs = 5000): Promise<StreamEvent> => {
    const deadline = Date.now() + timeoutMs;
    while (events.length < count) {
      if (Date.now() > deadline) throw new Error(`no event ${count} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return events[count - 1]!;
  };
  return { response, ended, events, next, close: () => request.destroy() };
}

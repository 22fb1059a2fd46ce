import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the first byte sent to the connection's end. */
  elapsedMs: number;
}

/**
 * Sends bytes as they are on a new connection (for what an HTTP client library would refuse to send) and
 * reads the answer until the server closes the connection or `waitMs` passes.
 */
export function rawRequest(
  port: number,
  parts: (string | { pauseMs: number })[],
  waitMs = 5_000,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const started = performance.now();
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(statusLine.split(' ')[1] ?? 0),
        headers,
        body: rest.join('\r\n\r\n'),
        elapsedMs: performance.now() - started,
      });
    });
    socket.once('connect', async () => {
      try {
        for (const part of parts) {
          if (typeof part === 'string') socket.write(part);
          else await new Promise((r) => setTimeout(r, part.pauseMs));
        }
      } catch (error) {
        reject(error);
      }
    });
  });
}

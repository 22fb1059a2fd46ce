import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** `performance.now()` when the body had arrived. */
  receivedAt: number;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>/hooks` */
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A webhook receiver on loopback; answers each request with the next of `statuses`, then 200. With `hang` it
 * never answers (an endpoint that is down without refusing connections) until it is closed.
 */
export async function startReceiver(
  statuses: number[] = [],
  options: { hang?: boolean } = {},
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const queue = [...statuses];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers[name] = value;
      }
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: performance.now(),
      });
      if (options.hang) return;
      res.statusCode = queue.shift() ?? 200;
      res.end('received');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An event as a receiver gets it. */
export interface DeliveredEvent {
  id: string;
  type: string;
  createdAt: string;
  livemode: boolean;
  data: { object: Record<string, unknown> };
}

/** The Standard Webhooks headers of a received request, as `Webhook.verify` takes them. */
export function signatureHeadersOf(request: ReceivedRequest): Record<string, string> {
  return {
    'webhook-id': request.headers['webhook-id'] ?? '',
    'webhook-timestamp': request.headers['webhook-timestamp'] ?? '',
    'webhook-signature': request.headers['webhook-signature'] ?? '',
  };
}

/** Starts receivers for a test file and closes them all at its end: `const receivers = receiverSet();`. */
export function receiverSet() {
  const started: Receiver[] = [];
  return {
    async start(statuses: number[] = [], options: { hang?: boolean } = {}): Promise<Receiver> {
      const receiver = await startReceiver(statuses, options);
      started.push(receiver);
      return receiver;
    },
    closeAll: () => Promise.all(started.map((receiver) => receiver.close())),
  };
}

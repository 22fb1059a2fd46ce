import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import net from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** One message an SMTP server took: its envelope recipients and the raw message (headers and body). */
export interface ReceivedMail {
  recipients: string[];
  raw: string;
}

export interface LocalSmtpServer {
  server: SMTPServer;
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  /** Every message taken, in order. */
  received: ReceivedMail[];
  close(): Promise<void>;
}

/** An SMTP server on a free loopback port, without TLS or login, keeping what it receives; `options` override. */
export async function startSmtpServer(options: Partial<SMTPServerOptions> = {}): Promise<LocalSmtpServer> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          recipients: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('latin1'),
        });
        callback();
      });
    },
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as net.AddressInfo;
  return { server, url: `smtp://127.0.0.1:${port}`, received, close: () => closeSmtp(server) };
}

export const closeSmtp = (server: SMTPServer) =>
  new Promise<void>((resolve) => server.close(() => resolve()));

/** A port nothing listens on: taken, then let go. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Undoes the transfer encodings nodemailer may pick: quoted-printable or base64 bodies, encoded-word headers. */
export function decodeBody(raw: string): { headers: string; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const encoded = raw.slice(split + 4);
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
  if (encoding === 'base64') return { headers, body: Buffer.from(encoded, 'base64').toString('utf8') };
  if (encoding === 'quoted-printable') return { headers, body: decodeQuotedPrintable(encoded) };
  return { headers, body: Buffer.from(encoded, 'latin1').toString('utf8') };
}

export function decodeQuotedPrintable(text: string): string {
  const unwrapped = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < unwrapped.length; i++) {
    if (unwrapped[i] === '=' && /^[0-9A-F]{2}$/i.test(unwrapped.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(unwrapped.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(unwrapped.charCodeAt(i));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The Subject header of unfolded `headers` (as `decodeBody` gives them), its encoded words decoded. */
export function subjectOf(headers: string): string {
  const value = /^subject:\s*(.*)$/im.exec(headers)?.[1] ?? '';
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_, kind: string, data: string) =>
      kind.toLowerCase() === 'b'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}

/** One request the fake message provider got; `body` is the parsed JSON, or the text when it is not JSON. */
export interface ProviderRequest {
  method: string | undefined;
  path: string | undefined;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface ProviderAnswer {
  status: number;
  body: string;
}

export interface FakeMessageProvider {
  server: Server;
  /** `http://127.0.0.1:<port>`, for MESSAGE_PROVIDER_URL. */
  url: string;
  /** Every request, in order, answered or not. */
  requests: ProviderRequest[];
  /** The answer when no one-off answer is waiting; change it at will. */
  answer: ProviderAnswer;
  /** Answers given once each, in order, before `answer` again. */
  answerOnce(...answers: ProviderAnswer[]): void;
  close(): Promise<void>;
}

export interface FakeMessageProviderOptions {
  /** `{"id":"msg_1"}` with 200 unless given. */
  answer?: ProviderAnswer;
  /** Paths recorded but never answered (a provider that hangs). */
  silentPaths?: readonly string[];
}

/** An HTTP message provider on a free loopback port that records each request and answers as told. */
export async function startMessageProvider(
  options: FakeMessageProviderOptions = {},
): Promise<FakeMessageProvider> {
  const once: ProviderAnswer[] = [];
  const silent = new Set(options.silentPaths ?? []);
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      fake.requests.push({ method: request.method, path: request.url, headers: request.headers, body });
      if (request.url !== undefined && silent.has(request.url)) return;
      const { status, body: answer } = once.shift() ?? fake.answer;
      response.writeHead(status, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeMessageProvider = {
    server,
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    requests: [],
    answer: options.answer ?? { status: 200, body: '{"id":"msg_1"}' },
    answerOnce: (...answers) => {
      once.push(...answers);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

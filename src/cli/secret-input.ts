import { readFile } from 'node:fs/promises';
import type { Config } from '../config.js';
import { UsageError } from './io.js';

/**
 * A secret read from a file, or from stdin for `-`: never a flag's value, which would land in shell history and
 * in the process list. Surrounding whitespace (a file's last newline) is not part of it.
 */
export async function readSecret(
  path: string,
  option: string,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<string> {
  let text: string;
  try {
    text = path === '-' ? await readAll(stdin) : await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(
      `--${option}: cannot read '${path}'${code === 'ENOENT' ? ': no such file' : code ? ` (${String(code)})` : ''}`,
    );
  }
  const secret = text.trim();
  if (secret === '') throw new UsageError(`--${option}: '${path}' is empty`);
  return secret;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Refuses to store `what` without PAYTRACK_SECRET_KEY, which encrypts `them` at rest. */
export function requireSecretKey(config: Readonly<Config>, what: string, them: string): void {
  if (config.secretKeys.length > 0) return;
  throw new UsageError(
    `PAYTRACK_SECRET_KEY must be set to store ${what}: it encrypts ${them} at rest. Make one with \`openssl rand -base64 32\`, keep it safe, and give the same one to every paytrack process.`,
  );
}

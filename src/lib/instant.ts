import { fieldError } from './app-error.js';

/** Normalises an accepted date-time to the one stored form, `YYYY-MM-DDTHH:mm:ss.sssZ`, so text compares in time order. */
export function toInstant(value: string, field: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw fieldError({ [field]: 'must be an ISO 8601 date-time' });
  return date.toISOString();
}

/** `from`/`to` list filters in stored form. */
export function instantRange(query: { from?: string; to?: string }): { from?: string; to?: string } {
  return {
    ...(query.from ? { from: toInstant(query.from, 'from') } : {}),
    ...(query.to ? { to: toInstant(query.to, 'to') } : {}),
  };
}

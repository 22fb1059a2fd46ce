/** Metadata is stored as JSON text: an object of string values. */
export function parseMetadata(text: string): Record<string, string> {
  const value: unknown = JSON.parse(text);
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
}

export function stringifyMetadata(value: Record<string, string> | undefined): string {
  return JSON.stringify(value ?? {});
}

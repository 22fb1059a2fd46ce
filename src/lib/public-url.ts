/**
 * The address people reach this server at (`PUBLIC_URL`), for links that records carry wherever they are made:
 * a payment's receipt link is written by the money layer, which holds no configuration. Set once when the
 * process assembles its context; every process of one deployment has the same.
 */
let base = 'http://localhost:3000';

export function usePublicUrl(url: string): void {
  base = url;
}

export const publicUrl = (): string => base;

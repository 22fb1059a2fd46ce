/** The part of autocannon's programmatic API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    /** Seconds before a request counts as timed out. */
    timeout?: number;
    warmup?: { connections?: number; duration?: number };
    /** Each request object may rewrite the request before it is sent. */
    requests?: Array<{ setupRequest?: (request: Request) => Request }>;
  }

  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  interface Result {
    requests: { average: number; total: number; sent: number };
    latency: { average: number; p50: number; p99: number; max: number };
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
  }

  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}

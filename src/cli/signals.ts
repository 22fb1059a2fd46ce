/**
 * Resolves when the command should stop: when `signal` aborts, or else on the first SIGINT or SIGTERM.
 * Its handlers are removed then, so a second Ctrl-C ends a shutdown that hangs.
 */
export function untilShutdown(signal: AbortSignal | undefined): Promise<string> {
  if (signal) {
    if (signal.aborted) return Promise.resolve('abort');
    return new Promise((resolve) => signal.addEventListener('abort', () => resolve('abort'), { once: true }));
  }
  return new Promise((resolve) => {
    const stop = (name: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(name);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

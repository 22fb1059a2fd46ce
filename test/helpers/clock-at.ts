import type { TestApp } from './app.js';

/**
 * `at(instant, work)`: runs `work` with the test app's frozen clock at `instant` (records get that time), then
 * puts the clock back at `now`. `app` is read when `at` runs, so a file can make it before its app exists.
 */
export function clockAt(app: () => TestApp, now: string) {
  return async function at<T>(instant: string, work: () => Promise<T>): Promise<T> {
    const t = app();
    t.clock.set(new Date(instant));
    try {
      return await work();
    } finally {
      t.clock.set(new Date(now));
    }
  };
}

/** `advancing`: an advance answered before its due work was done; the worker is finishing it. */
export type TestClockStatus = 'ready' | 'advancing';

/** A workspace's test clock: test mode's time is real time plus this offset (no row: offset 0, ready). */
export interface TestClocksTable {
  workspace_id: string;
  offset_ms: number;
  status: TestClockStatus;
  updated_at: string;
}

declare module '../db/schema.js' {
  interface Database {
    test_clocks: TestClocksTable;
  }
}

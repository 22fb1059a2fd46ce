/** `advancing`: an advance answered before its due work was done; the worker is finishing it. */
export type TestClockStatus = 'ready' | 'advancing';

/** A workspace's test clock: test mode's time is real time plus this offset (no row: offset 0, ready). */
export interface TestClocksTable {
  workspace_id: string;
  offset_ms: number;
  status: TestClockStatus;
  /**
   * While `advancing`: the test-mode instant its advance's due work has reached; the worker steps on from there
   * to the advance's target. Null when ready (and for an advance begun before advances stepped: its target).
   */
  swept_to: string | null;
  updated_at: string;
}

declare module '../db/schema.js' {
  interface Database {
    test_clocks: TestClocksTable;
  }
}

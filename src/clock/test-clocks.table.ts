/** A workspace's test clock: test mode's time is real time plus this offset (no row: offset 0). */
export interface TestClocksTable {
  workspace_id: string;
  offset_ms: number;
  updated_at: string;
}

declare module '../db/schema.js' {
  interface Database {
    test_clocks: TestClocksTable;
  }
}

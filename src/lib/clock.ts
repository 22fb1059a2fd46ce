/** Time comes from here, so tests can move it instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that follows real time plus an offset tests can move forward. */
export class ManualClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export function isoNow(clock: Clock): string {
  return clock.now().toISOString();
}

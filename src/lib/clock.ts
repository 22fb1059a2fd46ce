/** Time comes from here, so tests can move it instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A frozen clock for tests: it shows the same instant until it is moved. */
export class ManualClock implements Clock {
  private ms: number;

  constructor(start: Date = new Date()) {
    this.ms = start.getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  advance(ms: number): void {
    this.ms += ms;
  }

  set(instant: Date): void {
    this.ms = instant.getTime();
  }
}

/** A clock that always shows `at`: one instant for everything a sweep does, however long it takes. */
export function fixedClock(at: Date): Clock {
  const ms = at.getTime();
  return { now: () => new Date(ms) };
}

/** Another clock shifted by a fixed offset: a test clock runs at the speed of its base from where it was moved. */
export class OffsetClock implements Clock {
  constructor(
    private readonly base: Clock,
    readonly offsetMs: number,
  ) {}

  now(): Date {
    return new Date(this.base.now().getTime() + this.offsetMs);
  }
}

/** The clock `offsetMs` ahead of `base`; the base itself when there is no offset. */
export function offsetClock(base: Clock, offsetMs: number): Clock {
  return offsetMs === 0 ? base : new OffsetClock(base, offsetMs);
}

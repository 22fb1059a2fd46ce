/**
 * Report totals are kept per UTC quarter hour (a slot, `YYYY-MM-DDTHH:MM`): every time zone's offset is a whole
 * number of quarter hours, so slots group exactly into local days, weeks and months in any zone.
 */

const QUARTER_MS = 15 * 60_000;

/** The slot an instant falls in. */
export function slotOf(instant: string | Date): string {
  const ms = new Date(instant).getTime();
  return new Date(ms - (((ms % QUARTER_MS) + QUARTER_MS) % QUARTER_MS)).toISOString().slice(0, 16);
}

/** The instant a slot starts at. */
export function slotStart(slot: string): string {
  return `${slot}:00.000Z`;
}

/** The start of the first slot at or after an instant. */
export function slotCeiling(instant: string): string {
  const floor = slotStart(slotOf(instant));
  return floor === new Date(instant).toISOString()
    ? floor
    : new Date(Date.parse(floor) + QUARTER_MS).toISOString();
}

/** A range of instants, `from` included (absent: no start), `to` excluded. */
export interface InstantRange {
  from?: string;
  to: string;
}

/**
 * How a range [from, end) is read: its whole slots (`whole`, null when it has none) from the rollup plus the rows
 * not folded in yet, and the partial slots at its edges from the rows themselves.
 */
export interface SlotSplit {
  whole: InstantRange | null;
  edges: InstantRange[];
}

export function splitRange(from: string | null, end: string): SlotSplit {
  const wholeTo = slotStart(slotOf(end));
  if (from === null)
    return { whole: { to: wholeTo }, edges: wholeTo < end ? [{ from: wholeTo, to: end }] : [] };
  const wholeFrom = slotCeiling(from);
  if (wholeFrom >= wholeTo) return { whole: null, edges: from < end ? [{ from, to: end }] : [] };
  const edges: InstantRange[] = [];
  if (from < wholeFrom) edges.push({ from, to: wholeFrom });
  if (wholeTo < end) edges.push({ from: wholeTo, to: end });
  return { whole: { from: wholeFrom, to: wholeTo }, edges };
}

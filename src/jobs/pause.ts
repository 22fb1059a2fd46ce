/**
 * A loop's wait between rounds, cut short by `wake`. A wake that comes while the loop is busy is kept, so the
 * next wait returns at once instead of sleeping through work that arrived during the round.
 */
export class Pause {
  private woken = false;
  private resolveWait: (() => void) | null = null;

  /** Waits `ms`, or less if woken meanwhile or since the last wait. */
  wait(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.end(), ms);
      this.resolveWait = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  wake(): void {
    if (this.resolveWait) this.end();
    else this.woken = true;
  }

  private end(): void {
    const resolve = this.resolveWait;
    this.resolveWait = null;
    this.woken = false;
    resolve?.();
  }
}

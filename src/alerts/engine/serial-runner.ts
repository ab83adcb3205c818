/**
 * Serialises the engine's work: a call made while another runs (a listener calling back into
 * the engine, a timer) is served after the current cycle, never inside it. Once closed, nothing
 * runs any more.
 */
export class SerialRunner {
  private busy = false;
  private readonly deferred: (() => void)[] = [];
  closed = false;

  run(fn: () => void): void {
    if (this.closed) return;
    if (this.busy) {
      this.deferred.push(fn);
      return;
    }
    this.busy = true;
    try {
      fn();
      while (this.deferred.length > 0) this.deferred.shift()!();
    } finally {
      this.busy = false;
      this.deferred.length = 0;
    }
  }
}

/**
 * Runs async tasks one at a time, in arrival order. One SQLite connection serves every request,
 * and a transaction spans awaits: without this, a second request could interleave its
 * statements with an open transaction.
 */
export class SerialLock {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    // The tail never rejects, so the next task runs whether this one failed or not.
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

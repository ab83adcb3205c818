/**
 * Runs writes one after another. Engine effects and user changes to the same alerts and
 * triggers (an auto-resolve and an ack, an autoDisable and an edit) must not interleave.
 * A task must never wait for a task queued after it: that would wait forever.
 */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly onError: (err: unknown) => void) {}

  /** Queues `fn`; the result (or error) goes to the caller. */
  run<T>(fn: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.catch(() => {});
    return result;
  }

  /** Queues `fn` for nobody to wait on; a failure is reported, never thrown. */
  post(fn: () => Promise<unknown> | unknown): void {
    this.run(fn).catch(this.onError);
  }

  /** Resolves once everything queued so far is done. */
  idle(): Promise<void> {
    return this.tail.then(() => {});
  }
}

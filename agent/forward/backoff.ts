/** Exponential backoff with jitter, so a fleet that lost its broker does not reconnect in lockstep. */
export class Backoff {
  private attempt = 0;
  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next attempt: full delay halved at most by jitter. */
  next(): number {
    const base = Math.min(this.maxMs, this.minMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return Math.round(base * (0.5 + this.random() * 0.5));
  }

  reset(): void {
    this.attempt = 0;
  }
}

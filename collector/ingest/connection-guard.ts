import type { Socket } from "node:net";
import { addressGroup } from "../../src/net/address-group.ts";

/** MQTT CONNECT's fixed header type (packet type 1, flags 0). */
const CONNECT = 0x10;

export interface ConnectionLimits {
  /** Largest packet of a logged-in client (--mqtt-max-packet). */
  maxPacketBytes: number;
  /** Bytes a client may send before it has logged in: its CONNECT (--mqtt-preauth-max-bytes). */
  preAuthBytes: number;
  /** Time a client has from connecting until it has logged in (--mqtt-preauth-timeout). */
  preAuthMs: number;
  /** Connections not yet logged in, at most (--mqtt-preauth-max-connections); a quarter of it per address group. */
  maxPending: number;
}

export type GuardEvent =
  | { why: "too-large"; size: number; max: number; loggedIn: boolean }
  | { why: "not-connect" }
  | { why: "too-slow"; ms: number }
  | { why: "too-many-pending"; pending: number; max: number; group: string };

interface Guarded {
  loggedIn: boolean;
  group: string;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * What a client may make the embedded broker hold before it has logged in (aedes has no limits
 * of its own, and would buffer a packet of up to 256 MB from anyone who connects). Before the
 * login a connection may send only a CONNECT of at most `preAuthBytes` (everything it sends
 * until then counts), must be logged in within `preAuthMs`, and there are at most `maxPending`
 * such connections (a quarter of them from one address group, all of loopback being one).
 * After the login its packets may be up to `maxPacketBytes`. Every breach closes the connection
 * at once, before its bytes are buffered.
 */
export class ConnectionGuard {
  private readonly guarded = new WeakMap<Socket, Guarded>();
  private pendingCount = 0;
  private readonly pendingByGroup = new Map<string, number>();

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly closed: (e: GuardEvent, address: string) => void,
  ) {}

  get pending(): number {
    return this.pendingCount;
  }

  private get perGroup(): number {
    return Math.max(1, Math.floor(this.limits.maxPending / 4));
  }

  /** Starts guarding a new connection; undefined (and the socket destroyed) when too many are pending. */
  admit(sock: Socket): Socket | undefined {
    const address = sock.remoteAddress ?? "unknown";
    const group = addressGroup(address);
    const inGroup = this.pendingByGroup.get(group) ?? 0;
    if (this.pendingCount >= this.limits.maxPending || inGroup >= this.perGroup) {
      const max = this.pendingCount >= this.limits.maxPending ? this.limits.maxPending : this.perGroup;
      sock.destroy();
      this.closed({ why: "too-many-pending", pending: this.pendingCount >= this.limits.maxPending ? this.pendingCount : inGroup, max, group }, address);
      return undefined;
    }
    const g: Guarded = { loggedIn: false, group };
    this.guarded.set(sock, g);
    this.pendingCount++;
    this.pendingByGroup.set(group, inGroup + 1);
    g.timer = setTimeout(() => {
      this.close(sock, { why: "too-slow", ms: this.limits.preAuthMs });
    }, this.limits.preAuthMs);
    sock.once("close", () => this.settle(g));
    this.watch(sock, g);
    return sock;
  }

  /** The client on this socket has logged in: the pre-login limits no longer apply. */
  loggedIn(sock: Socket): void {
    const g = this.guarded.get(sock);
    if (!g || g.loggedIn) return;
    this.settle(g);
    g.loggedIn = true;
  }

  private settle(g: Guarded): void {
    if (g.loggedIn || g.timer === undefined) return;
    clearTimeout(g.timer);
    g.timer = undefined;
    this.pendingCount--;
    const n = (this.pendingByGroup.get(g.group) ?? 1) - 1;
    if (n > 0) this.pendingByGroup.set(g.group, n);
    else this.pendingByGroup.delete(g.group);
  }

  private close(sock: Socket, e: GuardEvent): void {
    if (sock.destroyed) return;
    sock.destroy();
    this.closed(e, sock.remoteAddress ?? "unknown");
  }

  /**
   * Follows the packets as aedes reads them and closes the connection as soon as a fixed header
   * breaks a limit, before the body is buffered. Wraps `read` (which aedes calls) rather than
   * adding a listener, which would change how the stream flows.
   */
  private watch(sock: Socket, g: Guarded): void {
    let state: "header" | "length" | "body" = "header";
    let length = 0;
    let multiplier = 1;
    let headerBytes = 0;
    let left = 0;
    let received = 0;
    const scan = (chunk: Uint8Array): GuardEvent | undefined => {
      if (!g.loggedIn) {
        received += chunk.length;
        if (received > this.limits.preAuthBytes) return { why: "too-large", size: received, max: this.limits.preAuthBytes, loggedIn: false };
      }
      let i = 0;
      while (i < chunk.length) {
        if (state === "body") {
          const skip = Math.min(left, chunk.length - i);
          i += skip;
          left -= skip;
          if (left === 0) state = "header";
          continue;
        }
        const b = chunk[i++]!;
        if (state === "header") {
          if (!g.loggedIn && b !== CONNECT) return { why: "not-connect" };
          state = "length";
          length = 0;
          multiplier = 1;
          headerBytes = 1;
          continue;
        }
        length += (b & 0x7f) * multiplier;
        multiplier *= 128;
        headerBytes++;
        if (b & 0x80) continue;
        const size = headerBytes + length;
        const max = g.loggedIn ? this.limits.maxPacketBytes : this.limits.preAuthBytes;
        if (size > max) return { why: "too-large", size, max, loggedIn: g.loggedIn };
        left = length;
        state = left === 0 ? "header" : "body";
      }
      return undefined;
    };
    const read = sock.read.bind(sock);
    sock.read = (n?: number) => {
      const chunk = read(n) as Buffer | string | null;
      if (chunk === null || typeof chunk === "string") return chunk;
      const breach = scan(chunk);
      if (breach === undefined) return chunk;
      this.close(sock, breach);
      return null;
    };
  }
}

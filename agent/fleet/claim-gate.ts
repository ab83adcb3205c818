import type { Decoder } from "cbor-x";
import type { Logger } from "../../src/log/logger.ts";
import { ProtocolError } from "../../src/protocol/envelope.ts";
import { type ClaimAnswer, decodeClaim } from "../../src/protocol/fleet-messages.ts";
import type { Publisher } from "../forward/forwarder.ts";

/**
 * The agent's side of its claim on the feed (docs/fleet.md, "Identity"). Until the collector
 * answers, or when it grants the claim, everything is sent as usual; when it refuses (another
 * identity holds the feed: a cloned device), data, events and inventory stay in the buffers and
 * are not sent, and one line says what to do. A later grant (an admin moved the feed here)
 * resumes sending at once.
 */
export class ClaimGate {
  private refusedBy: string | undefined;
  private logged = "";

  constructor(
    private readonly o: {
      instance: string;
      tenant: string;
      feed: string;
      identityFile: string;
      dataDir: string;
      dec: Decoder;
      log: Logger;
      /** The claim was granted after a refusal: resend what waited. */
      resumed(): void;
      /** The feed was released: claim it again (publish the online status anew). */
      reclaim(): void;
    },
  ) {}

  /** False while another identity holds the feed. */
  get allowed(): boolean {
    return this.refusedBy === undefined;
  }

  /** A publisher that is ready only while the claim is not refused (for the forwarders and the inventory). */
  gated(link: Publisher): Publisher {
    const gate = this;
    return {
      get ready() {
        return link.ready && gate.allowed;
      },
      publish: (topic, payload) => (gate.allowed ? link.publish(topic, payload) : Promise.reject(new Error("the feed is held by another agent identity"))),
    };
  }

  /** A `claim` message on the ack topic; answers to other identities on the feed are ignored. */
  onMessage(payload: Uint8Array): void {
    let a: ClaimAnswer;
    try {
      a = decodeClaim(this.o.dec, payload);
    } catch (e) {
      this.o.log.warn("ignoring an invalid claim answer", { err: e instanceof ProtocolError ? e.message : String(e) });
      return;
    }
    if (a.instance !== this.o.instance) return;
    if (a.reclaim) {
      this.o.log.info(`feed ${this.o.feed} was released by an admin: claiming it again`, { instance: this.o.instance });
      this.o.reclaim();
      return;
    }
    if (a.granted) {
      if (this.refusedBy === undefined) return;
      this.refusedBy = undefined;
      this.logged = "";
      this.o.log.info(`this agent's identity now holds feed ${this.o.feed}: sending what waited in the buffer`, { instance: this.o.instance });
      this.o.resumed();
      return;
    }
    const h = a.holder;
    this.refusedBy = h?.instance ?? "?";
    const line = h
      ? `feed ${this.o.feed} of tenant ${this.o.tenant} is held by another agent (identity ${h.instance}${h.host ? ` on host ${h.host}` : ""}, since ${new Date(h.since).toISOString()}): the collector refuses this agent's data, kept here in the buffer. If this device is a clone, start it with its own --feed and an empty --data-dir (a copied ${this.o.identityFile} also means a copied identity: delete it to make a new one); if it replaces that host, have an admin move the feed to identity ${this.o.instance} (docs/fleet.md)`
      : `the collector refused this agent's claim on feed ${this.o.feed} (its signature did not verify): delete ${this.o.identityFile} to make a new identity (docs/fleet.md)`;
    // Said once per holder, not at every reconnect.
    if (line !== this.logged) this.o.log.error(line, { instance: this.o.instance });
    this.logged = line;
  }
}

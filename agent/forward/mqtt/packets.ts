/**
 * The MQTT 3.1.1 packets the agent needs (OASIS MQTT 3.1.1 §2–3): it connects with a will,
 * publishes at QoS 0 or 1, subscribes at QoS 1, receives publishes and pings. Nothing else:
 * mqtt.js costs the agent about 28 MB of memory (its packet library alone builds 65,536
 * buffers at load), more than everything else together.
 */

export const PACKET = {
  CONNECT: 1,
  CONNACK: 2,
  PUBLISH: 3,
  PUBACK: 4,
  SUBSCRIBE: 8,
  SUBACK: 9,
  PINGREQ: 12,
  PINGRESP: 13,
  DISCONNECT: 14,
} as const;

const utf8 = new TextEncoder();
const text = new TextDecoder();

export class MqttProtocolError extends Error {}

/** The variable-length "remaining length" of a fixed header (§2.2.3). */
function remainingLength(n: number): number[] {
  if (n > 268_435_455) throw new MqttProtocolError("packet too large");
  const out: number[] = [];
  do {
    let digit = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) digit |= 0x80;
    out.push(digit);
  } while (n > 0);
  return out;
}

/** Builds a packet from its first byte and the parts of its body. */
function packet(first: number, parts: Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const header = [first, ...remainingLength(len)];
  const out = new Uint8Array(header.length + len);
  out.set(header, 0);
  let at = header.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const u16 = (n: number) => new Uint8Array([n >> 8, n & 0xff]);

/** A length-prefixed string or byte field (§1.5.3). */
function field(v: string | Uint8Array): Uint8Array {
  const bytes = typeof v === "string" ? utf8.encode(v) : v;
  if (bytes.length > 65_535) throw new MqttProtocolError("field longer than 65535 bytes");
  const out = new Uint8Array(2 + bytes.length);
  out.set(u16(bytes.length), 0);
  out.set(bytes, 2);
  return out;
}

export interface ConnectOptions {
  clientId: string;
  keepaliveSeconds: number;
  clean: boolean;
  username?: string;
  password?: string;
  will?: { topic: string; payload: Uint8Array; qos: 0 | 1; retain: boolean };
}

export function encodeConnect(o: ConnectOptions): Uint8Array {
  let flags = o.clean ? 0x02 : 0;
  const parts = [field("MQTT"), new Uint8Array([4]), new Uint8Array(1), u16(o.keepaliveSeconds), field(o.clientId)];
  if (o.will) {
    flags |= 0x04 | (o.will.qos << 3) | (o.will.retain ? 0x20 : 0);
    parts.push(field(o.will.topic), field(o.will.payload));
  }
  if (o.username !== undefined) {
    flags |= 0x80;
    parts.push(field(o.username));
  }
  if (o.password !== undefined) {
    flags |= 0x40;
    parts.push(field(o.password));
  }
  parts[2]![0] = flags;
  return packet(PACKET.CONNECT << 4, parts);
}

export function encodePublish(p: { topic: string; payload: Uint8Array; qos: 0 | 1; retain: boolean; id?: number }): Uint8Array {
  const first = (PACKET.PUBLISH << 4) | (p.qos << 1) | (p.retain ? 1 : 0);
  const parts = [field(p.topic)];
  if (p.qos > 0) parts.push(u16(p.id ?? 0));
  parts.push(p.payload);
  return packet(first, parts);
}

/**
 * A PUBLISH as its head (fixed header, topic, packet id) and its payload, the caller's bytes as
 * they are: written one after the other they are the packet encodePublish makes, without
 * copying a payload of a megabyte into it.
 */
export function encodePublishParts(p: { topic: string; payload: Uint8Array; qos: 0 | 1; retain: boolean; id?: number }): [Uint8Array, Uint8Array] {
  const first = (PACKET.PUBLISH << 4) | (p.qos << 1) | (p.retain ? 1 : 0);
  const topic = field(p.topic);
  const idLength = p.qos > 0 ? 2 : 0;
  const header = [first, ...remainingLength(topic.length + idLength + p.payload.length)];
  const head = new Uint8Array(header.length + topic.length + idLength);
  head.set(header, 0);
  head.set(topic, header.length);
  if (p.qos > 0) head.set(u16(p.id ?? 0), header.length + topic.length);
  return [head, p.payload];
}

export const encodePuback = (id: number) => packet(PACKET.PUBACK << 4, [u16(id)]);

export function encodeSubscribe(id: number, topics: string[], qos: 0 | 1): Uint8Array {
  // Bits 3..0 of SUBSCRIBE's first byte are reserved and must be 0010 (§3.8.1).
  return packet((PACKET.SUBSCRIBE << 4) | 0x02, [u16(id), ...topics.flatMap((t) => [field(t), new Uint8Array([qos])])]);
}

export const encodePingreq = () => packet(PACKET.PINGREQ << 4, []);
export const encodeDisconnect = () => packet(PACKET.DISCONNECT << 4, []);

export type Incoming =
  | { type: "connack"; sessionPresent: boolean; returnCode: number }
  | { type: "publish"; topic: string; payload: Uint8Array; qos: number; retain: boolean; id?: number }
  | { type: "puback"; id: number }
  | { type: "suback"; id: number; granted: number[] }
  | { type: "pingresp" };

function decodeBody(first: number, body: Uint8Array): Incoming | undefined {
  const type = first >> 4;
  const id = () => (body[0]! << 8) | body[1]!;
  switch (type) {
    case PACKET.CONNACK:
      if (body.length < 2) throw new MqttProtocolError("short CONNACK");
      return { type: "connack", sessionPresent: (body[0]! & 1) === 1, returnCode: body[1]! };
    case PACKET.PUBLISH: {
      const qos = (first >> 1) & 3;
      const topicLength = id();
      let at = 2 + topicLength;
      if (body.length < at) throw new MqttProtocolError("short PUBLISH");
      const topic = text.decode(body.subarray(2, at));
      let packetId: number | undefined;
      if (qos > 0) {
        packetId = (body[at]! << 8) | body[at + 1]!;
        at += 2;
      }
      return { type: "publish", topic, payload: body.slice(at), qos, retain: (first & 1) === 1, id: packetId };
    }
    case PACKET.PUBACK:
      return { type: "puback", id: id() };
    case PACKET.SUBACK:
      return { type: "suback", id: id(), granted: [...body.subarray(2)] };
    case PACKET.PINGRESP:
      return { type: "pingresp" };
    default:
      // Packets a QoS ≤ 1 client never receives are ignored.
      return undefined;
  }
}

/** Splits a byte stream into packets; feed it whatever the socket delivers. */
export class PacketReader {
  private buf: Uint8Array = new Uint8Array(0);

  push(chunk: Uint8Array): Incoming[] {
    if (this.buf.length === 0) this.buf = chunk;
    else {
      const joined = new Uint8Array(this.buf.length + chunk.length);
      joined.set(this.buf, 0);
      joined.set(chunk, this.buf.length);
      this.buf = joined;
    }
    const out: Incoming[] = [];
    for (;;) {
      const b = this.buf;
      if (b.length < 2) break;
      let len = 0;
      let mul = 1;
      let i = 1;
      let complete = false;
      while (i < b.length && i <= 4) {
        const digit = b[i++]!;
        len += (digit & 0x7f) * mul;
        mul *= 128;
        if ((digit & 0x80) === 0) {
          complete = true;
          break;
        }
      }
      if (!complete) {
        if (i > 4) throw new MqttProtocolError("malformed remaining length");
        break;
      }
      if (b.length < i + len) break;
      const p = decodeBody(b[0]!, b.subarray(i, i + len));
      if (p) out.push(p);
      this.buf = b.subarray(i + len);
    }
    // A partial packet is copied: the socket may reuse the memory of the chunk it delivered.
    this.buf = this.buf.length === 0 ? new Uint8Array(0) : this.buf.slice();
    return out;
  }
}

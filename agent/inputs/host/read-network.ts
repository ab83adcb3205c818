import { HOST_METRICS } from "./catalog.ts";
import type { NetDev } from "./parse/net-dev.ts";
import type { SampleBuilder } from "./series.ts";

/** Traffic, packet, error and drop counters per network interface. */
export function readNetwork(devices: NetDev[], out: SampleBuilder): void {
  for (const d of devices) {
    const r = { scope: "interface" as const, instance: d.name };
    out.emit(HOST_METRICS.netRxBytes, r, d.receive.bytes);
    out.emit(HOST_METRICS.netTxBytes, r, d.transmit.bytes);
    out.emit(HOST_METRICS.netRxPackets, r, d.receive.packets);
    out.emit(HOST_METRICS.netTxPackets, r, d.transmit.packets);
    out.emit(HOST_METRICS.netRxErrors, r, d.receive.errors);
    out.emit(HOST_METRICS.netTxErrors, r, d.transmit.errors);
    out.emit(HOST_METRICS.netRxDropped, r, d.receive.dropped);
    out.emit(HOST_METRICS.netTxDropped, r, d.transmit.dropped);
  }
}

import type { OptionValues } from "../src/config/options.ts";
import type { ReloadRegistry } from "../src/config/reload.ts";
import { readSecretOption } from "../src/config/secret-option.ts";
import type { PointBuffer } from "./buffer/point-buffer.ts";
import type { MqttLink } from "./forward/mqtt-link.ts";
import type { HostMonitoring } from "./host-monitoring.ts";
import type { Inputs } from "./inputs/inputs.ts";
import type { LocalAlerting } from "./local-alerting.ts";

/**
 * What the running agent can change without a restart, each part with the options it applies:
 * SIGHUP goes through these, and so does a remote configuration (docs/fleet.md), which may set
 * every one of them but the broker credentials.
 */
export function registerLiveParts(
  reload: ReloadRegistry,
  p: { inputs: Inputs; host: HostMonitoring; buffer: PointBuffer; local: LocalAlerting; link: MqttLink },
): void {
  reload.register({ what: "inputs", options: ["inputs"], apply: (v) => p.inputs.reload(v) });
  reload.register({ what: "host metric filters", options: ["host-include", "host-exclude", "host-exclude-fs-types"], apply: (v) => p.host.reloadFilters(v) });
  reload.register({ what: "host metrics interval", options: ["host-interval"], apply: (v) => p.host.setInterval(v) });
  reload.register({
    what: "buffer limits",
    options: ["buffer-max-bytes", "buffer-max-age", "events-buffer-max-bytes"],
    apply: (v: OptionValues) => {
      p.buffer.setLimits({ maxBytes: Number(v["buffer-max-bytes"] ?? 256 * 1024 ** 2), maxAgeMs: Number(v["buffer-max-age"] ?? 30 * 86_400_000) });
      p.local.setLimits(v);
    },
  });
  reload.register({
    what: "broker credentials",
    options: ["username", "password", "password-file"],
    apply: (v) => p.link.setCredentials(v.username === undefined ? undefined : String(v.username), readSecretOption(v, "password")),
  });
}

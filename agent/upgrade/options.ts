import type { OptionSpec } from "../../src/config/options.ts";
import { releaseKeyOption } from "../../src/release/key-option.ts";

/** The agent's options of upgrades (docs/fleet.md, "Upgrades"). */
export const upgradeOptions: OptionSpec[] = [
  releaseKeyOption(
    "public half of the release key (ed25519:… as `collector auth release-key` printed it, or a PEM file): the collector's upgrade orders are taken only for binaries signed with it; none: no upgrade is taken",
  ),
  {
    name: "collector-url",
    kind: "string",
    help: "the collector's HTTP(S) address upgrades are downloaded from, when not the broker's host at the port the order gives (a proxy); the agent's broker credential logs in",
  },
];

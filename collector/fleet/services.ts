import type { Logger } from "../../src/log/logger.ts";
import type { FleetStore } from "../store/fleet/types.ts";
import { FeedIdentities } from "./identities.ts";
import { RemoteConfigs } from "./remote-config.ts";

/** Fleet management (docs/fleet.md): identities and remote configuration over one store. */
export interface FleetServices {
  store: FleetStore;
  identities: FeedIdentities;
  configs: RemoteConfigs;
}

export function createFleetServices(store: FleetStore, log: Logger, now?: () => number): FleetServices {
  return { store, identities: new FeedIdentities({ store, log, now }), configs: new RemoteConfigs({ store, log, now }) };
}

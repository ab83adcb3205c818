import type { AlertingService } from "../../alerts/service.ts";

export interface AlertsHttpDeps {
  alerting: AlertingService;
  /** Watch streams write a space this often when nothing else was sent, so idle timeouts never cut them. */
  heartbeatMs: number;
  /** Reported by GET /status. */
  version: string;
}

/** The alerting interface's enumerations and shared shapes (spec and Hawkular Alerts names). */

export const TRIGGER_MODES = ["FIRING", "AUTORESOLVE"] as const;
export type TriggerMode = (typeof TRIGGER_MODES)[number];

export const TRIGGER_TYPES = ["STANDARD", "GROUP", "DATA_DRIVEN_GROUP", "MEMBER", "ORPHAN"] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export const EVENT_TYPES = ["ALERT", "EVENT"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const SEVERITIES = ["LOW", "MEDIUM", "HIGH", "CRITICAL"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const MATCHES = ["ALL", "ANY"] as const;
export type Match = (typeof MATCHES)[number];

export const ALERT_STATUSES = ["OPEN", "ACKNOWLEDGED", "RESOLVED"] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

/** Data and triggers without a source share this one (Hawkular's `Data.SOURCE_NONE`). */
export const SOURCE_NONE = "_none_";

export type StringMap = Record<string, string>;

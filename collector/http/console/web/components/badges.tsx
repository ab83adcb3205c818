/** Small status marks shared by the pages. */

export type Presence = "up" | "down" | "unknown";

export function PresenceBadge({ state }: { state: Presence | undefined }) {
  if (state === "up")
    return (
      <span class="badge ok">
        <span class="dot" aria-hidden="true" />
        Online
      </span>
    );
  if (state === "down")
    return (
      <span class="badge crit">
        <span class="dot" aria-hidden="true" />
        Offline
      </span>
    );
  return (
    <span class="badge">
      <span class="dot" aria-hidden="true" />
      Unknown
    </span>
  );
}

const SEVERITY_CLASS: Record<string, string> = { CRITICAL: "sev-critical", HIGH: "sev-high", MEDIUM: "sev-medium", LOW: "sev-low" };

/** Severity as a coloured mark and word (statuses are the filled badges: the two never look alike). */
export function SeverityBadge({ severity }: { severity: string | undefined }) {
  const s = severity ?? "MEDIUM";
  return (
    <span class={`sev ${SEVERITY_CLASS[s] ?? ""}`}>
      <span class="sev-mark" aria-hidden="true" />
      {s.charAt(0) + s.slice(1).toLowerCase()}
    </span>
  );
}

const STATUS_CLASS: Record<string, string> = { OPEN: "crit", ACKNOWLEDGED: "warn", RESOLVED: "ok" };
const STATUS_LABEL: Record<string, string> = { OPEN: "Open", ACKNOWLEDGED: "Acknowledged", RESOLVED: "Resolved" };

export function AlertStatusBadge({ status }: { status: string }) {
  return <span class={`badge ${STATUS_CLASS[status] ?? ""}`}>{STATUS_LABEL[status] ?? status}</span>;
}

import { useState } from "preact/hooks";
import { useConsole } from "../context.ts";
import { errorText, useLoad } from "../hooks.ts";
import { DEFAULT_FORM, FIRING_MODES, formProblem, type Operator, OPERATORS, type TriggerForm, triggerDefinition, triggerId } from "./trigger-form-model.ts";

/** "New trigger": a threshold on one of the tenant's metrics, and how it fires (trigger-form-model.ts). */
export function NewTriggerForm({ onCreated, onCancel }: { onCreated: (id: string) => void; onCancel: () => void }) {
  const { api, tenant } = useConsole();
  const [f, setF] = useState<TriggerForm>(DEFAULT_FORM);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const { data: metrics } = useLoad(async (signal) => (await api.list<{ id: string }>("svc/metrics", { type: "gauge" }, signal)).map((m) => m.id).sort(), [tenant]);
  const set = (patch: Partial<TriggerForm>) => setF((old) => ({ ...old, ...patch }));
  const submit = async (e: Event) => {
    e.preventDefault();
    const problem = formProblem(f);
    if (problem) return setError(problem);
    setBusy(true);
    setError(undefined);
    try {
      await api.post("svc/alerts/triggers/trigger", triggerDefinition(f));
      onCreated(triggerId(f.name));
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  const chosen = FIRING_MODES.find((m) => m.mode === f.mode)!;
  return (
    <form class="card card-body trigger-form" onSubmit={submit} aria-label="New trigger">
      <h2>New trigger</h2>
      <div class="form-row">
        <div class="field">
          <label for="trigger-name">Name</label>
          <input id="trigger-name" class="input" value={f.name} onInput={(e) => set({ name: e.currentTarget.value })} placeholder="Latency high" />
          <span class="small muted">id: {triggerId(f.name)}</span>
        </div>
        <div class="field">
          <label for="trigger-metric">Metric</label>
          <input id="trigger-metric" class="input" list="trigger-metrics" value={f.dataId} onInput={(e) => set({ dataId: e.currentTarget.value })} placeholder="web-1:cpu_usage_percent:total" />
          <datalist id="trigger-metrics">
            {(metrics ?? []).slice(0, 500).map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </div>
        <div class="field">
          <label for="trigger-operator">Fires when the value is</label>
          <span style={{ display: "inline-flex", gap: "6px" }}>
            <select id="trigger-operator" class="select" value={f.operator} onChange={(e) => set({ operator: e.currentTarget.value as Operator })} aria-label="Comparison">
              {OPERATORS.map((o) => (
                <option key={o.op} value={o.op}>
                  {o.label}
                </option>
              ))}
            </select>
            <input id="trigger-threshold" class="input" type="number" step="any" value={String(f.threshold)} onInput={(e) => set({ threshold: e.currentTarget.valueAsNumber })} aria-label="Threshold" style={{ width: "120px" }} />
          </span>
        </div>
        <div class="field">
          <label for="trigger-severity">Severity</label>
          <select id="trigger-severity" class="select" value={f.severity} onChange={(e) => set({ severity: e.currentTarget.value as TriggerForm["severity"] })}>
            {["LOW", "MEDIUM", "HIGH", "CRITICAL"].map((s) => (
              <option key={s} value={s}>
                {s.toLowerCase()}
              </option>
            ))}
          </select>
        </div>
      </div>
      <fieldset class="field firing-mode">
        <legend>How it fires</legend>
        {FIRING_MODES.map((m) => (
          <label key={m.mode} class="radio">
            <input type="radio" name="firing-mode" value={m.mode} checked={f.mode === m.mode} onChange={() => set({ mode: m.mode })} />
            {m.title}
            {m.mode === "sustained" && f.mode === "sustained" ? (
              <input
                class="input"
                type="number"
                min={2}
                max={1000}
                value={String(f.consecutive)}
                onInput={(e) => set({ consecutive: e.currentTarget.valueAsNumber })}
                aria-label="Points in a row"
                style={{ width: "80px", marginLeft: "8px" }}
              />
            ) : null}
          </label>
        ))}
        <p class="small muted" data-testid="firing-mode-explained">
          {chosen.explain(f)}
        </p>
      </fieldset>
      {error ? <div class="banner error">{error}</div> : null}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="btn btn-primary" disabled={busy}>
          Create trigger
        </button>
      </div>
    </form>
  );
}

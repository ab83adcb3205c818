import { useConsole } from "../context.ts";
import { href, type Route } from "../router.ts";
import { AlertsList } from "./alerts.tsx";
import { TriggerHistory, TriggersList } from "./triggers.tsx";

/** Alerts and triggers: `#/alerts`, `#/alerts/triggers`, `#/alerts/triggers/<id>` (a trigger's history). */
export function AlertsPage({ route }: { route: Route }) {
  const { tenant } = useConsole();
  const onTriggers = route.path[1] === "triggers";
  const trigger = onTriggers ? route.path[2] : undefined;
  return (
    <>
      <div class="page-head">
        <h1>Alerts</h1>
        <span class="sub">of {tenant}</span>
      </div>
      <nav class="tabs" aria-label="Alerts views">
        <a href={href(["alerts"])} aria-current={!onTriggers ? "page" : undefined}>
          Alerts
        </a>
        <a href={href(["alerts", "triggers"])} aria-current={onTriggers ? "page" : undefined}>
          Triggers
        </a>
      </nav>
      {!onTriggers ? <AlertsList route={route} /> : trigger ? <TriggerHistory id={trigger} /> : <TriggersList />}
    </>
  );
}

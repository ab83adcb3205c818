import { render } from "preact";
import { Api } from "./api.ts";
import { App, warmUp } from "./app.tsx";
import { applyTheme, storedTheme } from "./theme.ts";
// In this order: later files rely on the variables and base rules of earlier ones.
import "./styles/base.css";
import "./styles/controls.css";
import "./styles/tables.css";
import "./styles/panes-charts.css";
import "./styles/widgets.css";
import "./styles/fleet.css";

const api = new Api();
applyTheme(storedTheme());
// The collector wrote the session into the page: the first read can start before the first render.
const session = api.embeddedSession();
if (session) warmUp(api, session);
render(<App api={api} initial={session} />, document.getElementById("app")!);

import { render } from "preact";
import { Api } from "../api.ts";
import { applyTheme, storedTheme } from "../theme.ts";
import { OnSiteApp } from "./on-site-app.tsx";
// In this order: later files rely on the variables and base rules of earlier ones.
import "../styles/base.css";
import "../styles/controls.css";
import "../styles/tables.css";
import "../styles/panes-charts.css";
import "../styles/widgets.css";
import "./on-site.css";

/** The agent's on-site view: its own entry point, so its bundle holds the metrics page and nothing else of the console. */
const api = new Api();
applyTheme(storedTheme());
render(<OnSiteApp api={api} initial={api.embeddedSession()} />, document.getElementById("app")!);

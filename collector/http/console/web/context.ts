import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Api } from "./api.ts";

/** What every view needs: the API client (already on the chosen tenant) and who is logged in. */
export interface ConsoleContext {
  api: Api;
  tenant: string;
  user?: string;
  /** How to start an agent against this collector (append --tenant T), when its broker listens. */
  agentCommand?: string;
  /** Set when an agent serves the page (its on-site view): its local window bounds what can be read. */
  onSite?: { windowMs: number };
}

export const Console = createContext<ConsoleContext | undefined>(undefined);

export function useConsole(): ConsoleContext {
  const c = useContext(Console);
  if (!c) throw new Error("useConsole outside the console");
  return c;
}

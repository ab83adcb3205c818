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
}

export const Console = createContext<ConsoleContext | undefined>(undefined);

export function useConsole(): ConsoleContext {
  const c = useContext(Console);
  if (!c) throw new Error("useConsole outside the console");
  return c;
}

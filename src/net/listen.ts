import { OptionError } from "../config/option-error.ts";

/**
 * Why a server could not listen, as one line naming the option to change: a taken port or an
 * address this host does not have is the user's to fix, not a stack trace.
 */
export function listenError(e: unknown, what: string, address: string, option: string): unknown {
  const err = e as NodeJS.ErrnoException;
  const code = err?.code ?? "";
  const msg = String(err?.message ?? e);
  if (code === "EADDRINUSE" || /in use/i.test(msg)) return new OptionError(`${what} ${address} is already in use: choose another with ${option}`);
  if (code === "EADDRNOTAVAIL" || /not available|cannot assign/i.test(msg)) return new OptionError(`${what} ${address}: this host has no such address (${option})`);
  if (code === "EACCES" || /permission denied/i.test(msg)) return new OptionError(`${what} ${address}: permission denied (ports below 1024 need privileges; ${option})`);
  return e;
}

/** host:port as people write it, with IPv6 addresses in brackets. */
export function hostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * The agent options a remote configuration may set (docs/fleet.md): those that change while the
 * agent runs, except its credentials and what local actions may do, which stay its owner's.
 */
export const REMOTE_OPTION_NAMES = [
  "log-level",
  "inputs",
  "host-interval",
  "host-include",
  "host-exclude",
  "host-exclude-fs-types",
  "buffer-max-bytes",
  "buffer-max-age",
  "events-buffer-max-bytes",
] as const;

export type RemoteOptionName = (typeof REMOTE_OPTION_NAMES)[number];

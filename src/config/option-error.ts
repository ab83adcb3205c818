/** A mistake in options or configuration: the programs print its message in one line and exit with 2. */
export class OptionError extends Error {}

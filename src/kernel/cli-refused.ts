/**
 * A command line that cannot be run as given: printed as one line, exit code 1. Here rather than
 * in cli/ because feature code the CLI runs (audit's history) refuses with it too.
 */
export class CliRefused extends Error {}

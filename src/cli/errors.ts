/** A command line that cannot be run as given: printed as one line, exit code 1. */
export class CliRefused extends Error {}

/**
 * Bounds on one ingestion request. PostHog's capture bounds a request by its size (20 MiB for
 * `/batch`, 2 MiB elsewhere, as received; the decoded payload by the event size limit); Hedgelog
 * also bounds the number of events, because the work a request costs grows with its events
 * more than with its bytes (600,000 tiny events fit in 19 MB).
 */
export const MAX_EVENTS_PER_REQUEST = 10_000

/**
 * Requests at least this large are decoded and parsed on a decoding thread rather than on the
 * event loop (parsing this much JSON takes about a millisecond).
 */
export const OFF_LOOP_BYTES = 256 * 1024

/**
 * A compressed or form-encoded request smaller than that is first decoded on the loop with this
 * cap on what it may decode to (a few kilobytes of gzip can inflate to 20 MiB); one that decodes
 * to more goes to a decoding thread with the full limit.
 */
export const ON_LOOP_DECODED_BYTES = 256 * 1024


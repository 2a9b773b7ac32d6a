/**
 * Refusals of the capture endpoints, in the shape PostHog's capture service answers with:
 * `{status, code, error}`, where `error` is capture's own display text. Silent drops are not
 * errors: they are ordinary results of the normalisation steps. The class is here, below the
 * features, because auth/ counts a refused ingest key as a failed authentication; the refusals
 * themselves are made in ingestion/errors.ts.
 */
export type CaptureErrorCode =
  | 'empty_payload' | 'request_decoding_error' | 'request_parsing_error' | 'empty_batch'
  | 'ingest_key_required' | 'ingest_key_unknown' | 'unroutable_events'
  | 'payload_too_large' | 'service_unavailable' | 'internal_error'

export interface CaptureErrorBody {
  readonly status: number
  readonly code: CaptureErrorCode
  readonly error: string
}

export class CaptureError extends Error {
  override name = 'CaptureError'
  constructor(readonly status: number, readonly code: CaptureErrorCode, message: string) {
    super(message)
  }

  get body(): CaptureErrorBody {
    return { status: this.status, code: this.code, error: this.message }
  }
}

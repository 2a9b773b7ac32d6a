import { CaptureError } from '../http/capture-error.js'

export const emptyPayload = (): CaptureError => new CaptureError(400, 'empty_payload', 'request missing data payload')
export const decodingFailed = (why: string): CaptureError => new CaptureError(400, 'request_decoding_error', `failed to decode request: ${why}`)
export const parsingFailed = (why: string): CaptureError => new CaptureError(400, 'request_parsing_error', `failed to parse request: ${why}`)
export const emptyBatch = (): CaptureError => new CaptureError(400, 'empty_batch', 'request holds no event')
export const noToken = (): CaptureError => new CaptureError(401, 'ingest_key_required', 'event submitted without an api_key')
export const invalidToken = (reason: string): CaptureError => new CaptureError(403, 'ingest_key_unknown', `API key is not valid: ${reason}`)
export const unknownToken = (): CaptureError => new CaptureError(403, 'ingest_key_unknown', 'api_key does not resolve to a known project')
export const multipleTokens = (): CaptureError => new CaptureError(400, 'unroutable_events', 'batch submitted with inconsistent api_key values')
export const tooLarge = (why: string): CaptureError => new CaptureError(413, 'payload_too_large', `maximum event size exceeded: ${why}`)
export const unavailable = (): CaptureError => new CaptureError(503, 'service_unavailable', 'service unavailable: transient error, please retry')
export const internalError = (): CaptureError => new CaptureError(500, 'internal_error', 'internal server error')

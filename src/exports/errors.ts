import { DomainError, ValidationFailed } from '../kernel/errors.js'

/** What PostHog answers when its exporter has no way to export a resource in a format. */
export const notSupportedForResource = (): ValidationFailed =>
  new ValidationFailed('This type of export is not supported for this resource.', 'export_format')

/** A format PostHog knows that Hedgelog does not draw, worded as PostHog words formats it does not support. */
export const formatNotSupported = (format: string): ValidationFailed =>
  new ValidationFailed(`Export format ${format} is not supported.`, 'export_format')

/** PostHog records videos and GIFs of session recordings only, which Hedgelog does not keep. */
export const videoNotSupported = (): ValidationFailed =>
  new ValidationFailed('Video export supports session recordings only.', 'export_format')

/** Content larger than an export may hold; nothing was written. */
export class ExportTooLarge extends DomainError {
  override name = 'ExportTooLarge'
  constructor(size: number, limit: number) {
    super(413, 'validation_error', 'export_too_large', `The export would be ${size} bytes; an export holds at most ${limit}. Narrow the query or lower its limit.`)
  }
}

import { createHash } from 'node:crypto'

/** How a personal API key is stored and looked up: its SHA-256, in Django's `sha256$<hex>` form. */
export const hashApiKey = (value: string): string => `sha256$${createHash('sha256').update(value).digest('hex')}`

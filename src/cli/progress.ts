import cliProgress from 'cli-progress'

/** How a long run reports where it is: a bar on a terminal, a plain line now and then otherwise. */
export interface Progress {
  /** `total` is null when it is not known (input from a pipe). */
  update(value: number, total?: number | null): void
  /** Ends the bar or prints the last line. */
  done(): void
}

export interface ProgressOptions {
  readonly label: string
  /** What is counted, e.g. `events`. */
  readonly unit: string
  readonly total: number | null
  readonly stream?: NodeJS.WriteStream
  /** Between plain lines when the stream is not a terminal. Default 5 s. */
  readonly everyMs?: number
  readonly now?: () => number
}

const rateOf = (value: number, startedAt: number, now: number): number =>
  now > startedAt ? Math.round((value * 1000) / (now - startedAt)) : 0

/**
 * Progress on stderr: cli-progress draws the bar on a terminal; pipes and logs get a line when
 * the run starts, one every `everyMs` and one at the end.
 */
export const progress = (options: ProgressOptions): Progress => {
  const stream = options.stream ?? process.stderr
  const now = options.now ?? Date.now
  const startedAt = now()
  let total = options.total
  let value = 0
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar({
      stream,
      format: `${options.label} [{bar}] {value}/{total} ${options.unit} | {rate}/s | ETA {eta_formatted}`,
      hideCursor: true,
      etaBuffer: 50,
    }, cliProgress.Presets.shades_classic)
    bar.start(total ?? 0, 0, { rate: 0 })
    return {
      update(next, nextTotal) {
        value = Math.max(0, next)
        if (nextTotal !== undefined && nextTotal !== null && nextTotal !== total) {
          total = nextTotal
          bar.setTotal(nextTotal)
        }
        if (total === null || total < value) bar.setTotal(value)
        bar.update(value, { rate: rateOf(value, startedAt, now()) })
      },
      done() {
        bar.stop()
      },
    }
  }
  const everyMs = options.everyMs ?? 5000
  let lastLine = startedAt
  const line = () => {
    const rate = rateOf(value, startedAt, now())
    const share = total ? ` of ${total} (${Math.floor((value * 100) / Math.max(total, 1))}%)` : ''
    const eta = total && rate > 0 ? `, ETA ${Math.ceil((total - value) / rate)}s` : ''
    stream.write(`${options.label}: ${value}${share} ${options.unit}, ${rate}/s${eta}\n`)
  }
  line()
  return {
    update(next, nextTotal) {
      value = Math.max(0, next)
      if (nextTotal !== undefined) total = nextTotal
      if (total !== null && total < value) total = value
      if (now() - lastLine >= everyMs) {
        lastLine = now()
        line()
      }
    },
    done() {
      line()
    },
  }
}

/**
 * Ctrl-C (and SIGTERM) ask a long run to stop at its next safe point instead of killing it; a
 * second Ctrl-C stops at once.
 */
export const stopSignal = (): { readonly requested: () => boolean; readonly dispose: () => void } => {
  let requested = false
  const onSignal = () => {
    if (requested) process.exit(130)
    requested = true
    process.stderr.write('\nstopping at the next safe point (Ctrl-C again to stop at once)\n')
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return {
    requested: () => requested,
    dispose: () => {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    },
  }
}

export class Stopped extends Error {
  constructor(what: string) {
    super(`${what} stopped before it finished`)
  }
}

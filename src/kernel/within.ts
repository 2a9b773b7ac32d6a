/** A wait that ran out: what was waited for did not answer in time. */
export class NoAnswerInTime extends Error {
  override name = 'NoAnswerInTime'
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`)
  }
}

/**
 * `work`, or NoAnswerInTime after `ms`: for waits on a server whose driver may not bound them
 * (a server that accepts connections and never answers). `work` itself goes on; its outcome is
 * then ignored.
 */
export const within = <T>(ms: number, work: Promise<T>): Promise<T> => {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswerInTime(ms)), ms)
  })
  work.catch(() => undefined)
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

/**
 * Open-loop latency from this process: a request every 1/rate s whatever the answers' pace, each
 * timed from when it was due (so a stalled server cannot hide its queue), until `done()` says so.
 */
export const openLoop = async (
  request: () => Promise<Response>, rate: number, done: () => boolean,
): Promise<{ latencies: number[]; failures: number }> => {
  const latencies: number[] = []
  let failures = 0
  const inFlight = new Set<Promise<void>>()
  const interval = 1000 / rate
  const started = performance.now()
  for (let n = 0; !done(); n++) {
    const due = started + n * interval
    const wait = due - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const sent: Promise<void> = request().then(
      async (response) => {
        await response.arrayBuffer()
        if (response.status === 200) latencies.push(performance.now() - due)
        else failures++
      },
      () => { failures++ },
    ).finally(() => inFlight.delete(sent))
    inFlight.add(sent)
  }
  await Promise.all(inFlight)
  return { latencies, failures }
}

import { hostname } from 'node:os'
import { newUlid } from './ids.js'

const self = { host: hostname(), pid: process.pid, boot: newUlid() }

/** This process, as `host/pid/boot`: the boot id tells it apart from an earlier process that had its pid. */
export const processName = (): string => `${self.host}/${self.pid}/${self.boot}`

/**
 * Whether the process `name` (from `processName`) has certainly ended: only a process of this host
 * can be known to have. A pid held by some other process now counts as running.
 */
export const processEnded = (name: string): boolean => {
  const [host, pid, boot] = name.split('/')
  if (host !== self.host || pid === undefined || boot === undefined || !/^\d+$/.test(pid)) return false
  if (Number(pid) === self.pid) return boot !== self.boot
  try {
    process.kill(Number(pid), 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

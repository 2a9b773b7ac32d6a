/** Whether a process of this host is running. Signal 0 only asks; EPERM means it runs under another user. */
export const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

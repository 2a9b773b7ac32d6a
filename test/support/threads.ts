import { readdirSync, readFileSync } from 'node:fs'

/** The nice value of each thread of a process, from /proc (field 19 of each task's stat line). */
export const niceOfThreads = (pid: number): number[] =>
  readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
  })

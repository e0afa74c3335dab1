// Preload for spawned CLI runs (`node --import <this file's URL> bin/patchloom.js ...`): at exit
// it writes the process's peak resident set size, worker threads included, in bytes to the file
// named by PATCHLOOM_BENCH_RSS_FILE. Node's own counter, so the bench needs no GNU time. Loaded
// only into the untimed verification run of each row, never into a timed one.
import { writeFileSync } from 'node:fs'

const file = process.env['PATCHLOOM_BENCH_RSS_FILE']
if (file !== undefined && file !== '') {
  // resourceUsage().maxRSS is in kilobytes (getrusage's ru_maxrss on Linux).
  process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS * 1024)))
}

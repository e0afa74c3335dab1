// What deleting a pruned transaction costs this process: the journal's removeTreeAside on a flat
// tree of N files (a transaction's backups), by rm(1) in a child and by the walk of fs/promises
// calls it falls back to (a command that cannot start forces the walk). Per way: wall time and
// this process's CPU (process.cpuUsage, all its threads), medians, alternated rounds; the tree is
// rebuilt, untimed, before each. Does not: time rename into the trash or judge the numbers.
// Run: npm run build && node dist/bench/prune.bench.js [--files 10000] [--bytes 3000]
//   [--samples 5] [--dir DIR (default: the temp directory; /dev/shm for tmpfs)]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { removeTreeAside } from '../src/journal/fs.js'
import { loadLine, machineLine, markdownTable, median, ms } from './report.js'

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : (process.argv[i + 1] ?? fallback)
}

const files = Number(flag('files', '10000'))
const bytes = Number(flag('bytes', '3000'))
const samples = Number(flag('samples', '5'))
const parent = mkdtempSync(path.join(flag('dir', tmpdir()), 'patchloom-prune-bench-'))
const WAYS = [
  { name: 'rm -rf in a child', command: 'rm' },
  { name: 'the walk (fs/promises)', command: 'patchloom-no-such-command' },
] as const

const content = 'x'.repeat(bytes)
const times = new Map<string, { wall: number[]; cpu: number[] }>(
  WAYS.map((w) => [w.name, { wall: [], cpu: [] }]),
)
console.log(`## prune.bench\n\n${machineLine()}\n`)
try {
  for (let round = 0; round < samples; round++) {
    for (const way of WAYS) {
      const tree = path.join(parent, 'txn')
      mkdirSync(tree)
      for (let i = 0; i < files; i++) writeFileSync(path.join(tree, `old.${i}`), content)
      const cpu0 = process.cpuUsage()
      const started = performance.now()
      await removeTreeAside(tree, way.command)
      const wall = performance.now() - started
      const cpu = process.cpuUsage(cpu0)
      const t = times.get(way.name)
      t?.wall.push(wall)
      t?.cpu.push((cpu.user + cpu.system) / 1000)
    }
  }
} finally {
  rmSync(parent, { recursive: true, force: true })
}
console.log(
  `### ${files} files of ${bytes} bytes under ${flag('dir', tmpdir())} (median of ${samples})\n`,
)
console.log(
  markdownTable(
    ['way', 'wall ms', 'this process CPU ms'],
    WAYS.map((w) => {
      const t = times.get(w.name) ?? { wall: [], cpu: [] }
      return [w.name, ms(median(t.wall)), ms(median(t.cpu))]
    }),
  ),
)
console.log(`\n${loadLine()}`)

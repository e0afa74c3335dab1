import { it } from 'vitest'
import { normalizeLine } from '../../../src/text/normalize.js'
it('t', () => {
  const lines = Array.from({ length: 20_000 }, (_, i) => `row ${i}: ${'x'.repeat(i % 40)}`)
  for (let k = 0; k < 3; k++) {
    for (const pass of ['trim-end', 'trim', 'fold'] as const) {
      let t0 = performance.now()
      const keys = lines.map((l) => normalizeLine(l, pass))
      const t1 = performance.now()
      const m = new Map<string, number[]>()
      for (let i = 0; i < keys.length; i++) { const key = keys[i]!; const l = m.get(key); if (l === undefined) m.set(key, [i]); else l.push(i) }
      console.log(pass, (t1 - t0).toFixed(1), (performance.now() - t1).toFixed(1))
    }
  }
})

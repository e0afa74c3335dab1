// Prometheus's text exposition format as tests read it: every sample line as a name, its labels
// and its value (comments and blank lines skipped), and sums over the samples of one metric
// whose labels include the ones given. Strict: a line it cannot read fails the test.

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const m = LINE.exec(line)
    if (m === null) throw new Error(`not a Prometheus sample line: ${JSON.stringify(line)}`)
    const labels: Record<string, string> = {}
    for (const [, key, raw] of (m[2] ?? '').matchAll(LABEL)) {
      labels[key as string] = (raw as string).replace(/\\(.)/g, (_, c: string) =>
        c === 'n' ? '\n' : c,
      )
    }
    const raw = m[3] as string
    // prom-client writes NaN as `Nan`; Prometheus reads it either way.
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw)
    if (Number.isNaN(value) && !/^nan$/i.test(raw)) throw new Error(`not a sample value: ${line}`)
    samples.push({ name: m[1] as string, labels, value })
  }
  return samples
}

/** The samples of `name` whose labels include every one of `labels`. */
export function samplesOf(
  samples: readonly Sample[],
  name: string,
  labels: Readonly<Record<string, string>> = {},
): Sample[] {
  return samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )
}

/** The sum of those samples' values (0 when there are none). */
export function sumOf(
  samples: readonly Sample[],
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  return samplesOf(samples, name, labels).reduce((sum, s) => sum + s.value, 0)
}

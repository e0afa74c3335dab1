// Line charts as standalone SVG text, for the benches to write beside bench/RESULTS.md (people
// read a curve faster than a table). Pure: numbers in, a string out; no files, no DOM, no chart
// library. Each series is one <g class="series" data-series="NAME"> holding a <polyline> and one
// <circle> per point (with a <title> tooltip), so a test can find every series by name. Axes are
// linear from zero or logarithmic (decades, with 2 and 5 between them when the range is short);
// points that cannot be drawn (NaN, or not positive on a log axis) are left out, never invented.

export interface Point {
  readonly x: number
  readonly y: number
}

export interface Series {
  readonly name: string
  readonly points: readonly Point[]
}

export interface LineChart {
  readonly title: string
  /** A second, smaller line under the title (the machine and the command, say). */
  readonly subtitle?: string
  readonly xLabel: string
  readonly yLabel: string
  readonly series: readonly Series[]
  /** Logarithmic x axis. @default false */
  readonly xLog?: boolean
  /** Logarithmic y axis. @default false (linear from 0) */
  readonly yLog?: boolean
  /** Width of the plot area; the legend's column is added beside it. @default 480 */
  readonly plotWidth?: number
  /** @default 320 */
  readonly plotHeight?: number
}

/** Colour and dash per series, so lines stay apart in grey print and for colour-blind readers. */
const STYLES: readonly { readonly color: string; readonly dash: string }[] = [
  { color: '#1f77b4', dash: '' },
  { color: '#d62728', dash: '6 3' },
  { color: '#2ca02c', dash: '2 3' },
  { color: '#9467bd', dash: '8 3 2 3' },
  { color: '#ff7f0e', dash: '4 4' },
  { color: '#8c564b', dash: '1 2' },
  { color: '#17becf', dash: '10 4' },
  { color: '#7f7f7f', dash: '3 2 1 2' },
]

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
}

/** A tick or tooltip number: thousands separated, at most 3 significant digits below 100. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value)
  const abs = Math.abs(value)
  if (abs >= 100) return Math.round(value).toLocaleString('en-US')
  if (abs === 0) return '0'
  return String(Number(value.toPrecision(3)))
}

interface Axis {
  /** Maps a data value to 0..1 along the axis. */
  readonly unit: (value: number) => number
  readonly ticks: readonly number[]
  /** Whether a value can be drawn on this axis. */
  readonly drawable: (value: number) => boolean
}

function logAxis(values: readonly number[]): Axis {
  const positive = values.filter((v) => Number.isFinite(v) && v > 0)
  const min = positive.length > 0 ? Math.min(...positive) : 1
  const max = positive.length > 0 ? Math.max(...positive) : 10
  // Candidate ticks 1, 2 and 5 per decade; the axis runs from the last one at or below the
  // smallest value to the first one at or above the largest (so 100..10,000 is exactly that).
  const candidates: number[] = []
  for (let k = Math.floor(Math.log10(min)) - 1; k <= Math.ceil(Math.log10(max)) + 1; k++)
    for (const m of [1, 2, 5]) candidates.push(Number((m * 10 ** k).toPrecision(6)))
  const from = candidates.filter((c) => c <= min).pop() ?? min
  let to = candidates.find((c) => c >= max) ?? max
  if (to <= from) to = candidates.find((c) => c > from) ?? from * 10
  const lo = Math.log10(from)
  const hi = Math.log10(to)
  // More than two decades: label the powers of ten only (and the ends), or labels collide.
  const ticks = candidates.filter(
    (c) =>
      c >= from &&
      c <= to &&
      (hi - lo <= 2 || c === from || c === to || Number.isInteger(Math.log10(c))),
  )
  return {
    unit: (v) => (Math.log10(v) - lo) / (hi - lo),
    ticks,
    drawable: (v) => Number.isFinite(v) && v > 0,
  }
}

/** 1, 2 or 5 times a power of ten, at least `raw`. */
function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw))
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power
  return 10 * power
}

function linearAxis(values: readonly number[]): Axis {
  const finite = values.filter((v) => Number.isFinite(v) && v >= 0)
  const max = finite.length > 0 ? Math.max(...finite) : 0
  const step = max > 0 ? niceStep(max / 5) : 1
  const top = max > 0 ? Math.ceil(max / step) * step : 1
  const ticks: number[] = []
  for (let t = 0; t <= top + step / 2; t += step) ticks.push(Number(t.toPrecision(6)))
  return {
    unit: (v) => v / top,
    ticks,
    drawable: (v) => Number.isFinite(v) && v >= 0,
  }
}

const r1 = (v: number) => String(Math.round(v * 10) / 10)

export function lineChartSvg(chart: LineChart): string {
  const plotW = chart.plotWidth ?? 480
  const plotH = chart.plotHeight ?? 320
  const left = 78
  // The legend column fits its longest name (about 7 px per character at 12 px), and the
  // whole picture is at least as wide as the subtitle.
  const longest = Math.max(0, ...chart.series.map((s) => s.name.length))
  const right = Math.max(60, 56 + Math.ceil(longest * 7))
  const top = chart.subtitle === undefined ? 48 : 64
  const bottom = 56
  const width = Math.max(
    left + plotW + right,
    left + 20 + Math.ceil((chart.subtitle ?? '').length * 6.5),
  )
  const height = top + plotH + bottom
  const xs = chart.series.flatMap((s) => s.points.map((p) => p.x))
  const ys = chart.series.flatMap((s) => s.points.map((p) => p.y))
  const xAxis = chart.xLog === true ? logAxis(xs) : linearAxis(xs)
  const yAxis = chart.yLog === true ? logAxis(ys) : linearAxis(ys)
  const px = (x: number) => left + xAxis.unit(x) * plotW
  const py = (y: number) => top + plotH - yAxis.unit(y) * plotH

  const out: string[] = []
  out.push('<?xml version="1.0" encoding="UTF-8"?>')
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
      `viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
  )
  out.push(`<title>${escapeXml(chart.title)}</title>`)
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`)
  out.push(
    `<text x="${left}" y="24" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`,
  )
  if (chart.subtitle !== undefined)
    out.push(`<text x="${left}" y="42" fill="#555555">${escapeXml(chart.subtitle)}</text>`)

  out.push('<g class="grid" stroke="#e3e3e3" stroke-width="1">')
  for (const t of yAxis.ticks)
    out.push(`<line x1="${left}" y1="${r1(py(t))}" x2="${left + plotW}" y2="${r1(py(t))}"/>`)
  for (const t of xAxis.ticks)
    out.push(`<line x1="${r1(px(t))}" y1="${top}" x2="${r1(px(t))}" y2="${top + plotH}"/>`)
  out.push('</g>')

  out.push('<g class="axes" fill="#333333">')
  out.push(
    `<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888888"/>`,
  )
  for (const t of yAxis.ticks)
    out.push(
      `<text x="${left - 6}" y="${r1(py(t) + 4)}" text-anchor="end">${escapeXml(formatNumber(t))}</text>`,
    )
  for (const t of xAxis.ticks)
    out.push(
      `<text x="${r1(px(t))}" y="${top + plotH + 18}" text-anchor="middle">${escapeXml(formatNumber(t))}</text>`,
    )
  out.push(
    `<text x="${left + plotW / 2}" y="${height - 14}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`,
  )
  const yMid = top + plotH / 2
  out.push(
    `<text x="18" y="${yMid}" text-anchor="middle" transform="rotate(-90 18 ${yMid})">${escapeXml(chart.yLabel)}</text>`,
  )
  out.push('</g>')

  chart.series.forEach((series, i) => {
    const style = STYLES[i % STYLES.length] as (typeof STYLES)[number]
    const points = series.points.filter((p) => xAxis.drawable(p.x) && yAxis.drawable(p.y))
    const name = escapeXml(series.name)
    out.push(`<g class="series" data-series="${name}">`)
    if (points.length > 1) {
      const coords = points.map((p) => `${r1(px(p.x))},${r1(py(p.y))}`).join(' ')
      const dash = style.dash === '' ? '' : ` stroke-dasharray="${style.dash}"`
      out.push(
        `<polyline points="${coords}" fill="none" stroke="${style.color}" stroke-width="2"${dash}/>`,
      )
    }
    for (const p of points) {
      const tip = `${series.name}: ${formatNumber(p.x)}, ${formatNumber(p.y)}`
      out.push(
        `<circle cx="${r1(px(p.x))}" cy="${r1(py(p.y))}" r="3.5" fill="${style.color}">` +
          `<title>${escapeXml(tip)}</title></circle>`,
      )
    }
    out.push('</g>')
  })

  out.push('<g class="legend">')
  chart.series.forEach((series, i) => {
    const style = STYLES[i % STYLES.length] as (typeof STYLES)[number]
    const y = top + 10 + i * 20
    const x = left + plotW + 16
    const dash = style.dash === '' ? '' : ` stroke-dasharray="${style.dash}"`
    out.push(
      `<line x1="${x}" y1="${y}" x2="${x + 26}" y2="${y}" stroke="${style.color}" stroke-width="2"${dash}/>`,
    )
    out.push(`<text x="${x + 32}" y="${y + 4}">${escapeXml(series.name)}</text>`)
  })
  out.push('</g>')
  out.push('</svg>')
  return out.join('\n') + '\n'
}

// bench/svg.ts writes the charts that bench/large.bench.ts commits beside bench/RESULTS.md: they
// must be well-formed XML (checked by test/helpers/xml.ts, which is shown to refuse broken XML
// below), carry one named group per series, and place points where their values say.
import { describe, expect, it } from 'vitest'
import { formatNumber, lineChartSvg, type LineChart } from '../../../bench/svg.js'
import { findAll, parseXml, type XmlElement } from '../../helpers/xml.js'

const CHART: LineChart = {
  title: 'time per file',
  subtitle: 'cpus 2, loadavg 1.5',
  xLabel: 'files',
  yLabel: 'ms per file',
  xLog: true,
  series: [
    {
      name: 'git apply',
      points: [
        { x: 100, y: 0.2 },
        { x: 1000, y: 0.15 },
        { x: 10000, y: 0.14 },
      ],
    },
    {
      name: 'patchloom check',
      points: [
        { x: 100, y: 3 },
        { x: 1000, y: 2.2 },
        { x: 10000, y: 2.1 },
      ],
    },
  ],
}

function seriesGroups(svg: XmlElement): XmlElement[] {
  return findAll(svg, 'g').filter((g) => g.attrs['class'] === 'series')
}

function circles(group: XmlElement): { cx: number; cy: number; title: string }[] {
  return findAll(group, 'circle').map((c) => ({
    cx: Number(c.attrs['cx']),
    cy: Number(c.attrs['cy']),
    title: findAll(c, 'title')[0]?.text ?? '',
  }))
}

describe('lineChartSvg', () => {
  it('is well-formed SVG with one group per series, in order, each point drawn', () => {
    const svg = parseXml(lineChartSvg(CHART))
    expect(svg.name).toBe('svg')
    expect(svg.attrs['xmlns']).toBe('http://www.w3.org/2000/svg')
    const groups = seriesGroups(svg)
    expect(groups.map((g) => g.attrs['data-series'])).toEqual(['git apply', 'patchloom check'])
    for (const g of groups) {
      expect(circles(g)).toHaveLength(3)
      const points = findAll(g, 'polyline')[0]?.attrs['points']?.split(' ')
      expect(points).toHaveLength(3)
    }
    const legend = findAll(svg, 'g').find((g) => g.attrs['class'] === 'legend')
    expect(findAll(legend as XmlElement, 'text').map((t) => t.text)).toEqual([
      'git apply',
      'patchloom check',
    ])
    expect(findAll(svg, 'title')[0]?.text).toBe('time per file')
  })

  it('places points by value: log x spaced evenly by decade, larger y higher up', () => {
    const svg = parseXml(lineChartSvg(CHART))
    const [git, check] = seriesGroups(svg).map(circles) as [
      ReturnType<typeof circles>,
      ReturnType<typeof circles>,
    ]
    const [a, b, c] = git.map((p) => p.cx) as [number, number, number]
    expect(b - a).toBeGreaterThan(0)
    expect(Math.abs(c - b - (b - a))).toBeLessThan(0.5)
    // SVG y grows downwards: patchloom's 3 ms per file sits above git's 0.2 ms.
    expect(check[0]?.cy).toBeLessThan(git[0]?.cy as number)
    expect(git[0]?.title).toBe('git apply: 100, 0.2')
    const ticks = findAll(svg, 'g')
      .filter((g) => g.attrs['class'] === 'axes')
      .flatMap((g) => findAll(g, 'text').map((t) => t.text))
    expect(ticks).toEqual(expect.arrayContaining(['100', '1,000', '10,000', 'files']))
  })

  it('escapes names and leaves out points it cannot draw', () => {
    const text = lineChartSvg({
      ...CHART,
      yLog: true,
      title: 'a <b> & "c"',
      series: [
        {
          name: `x<&>"'y`,
          points: [
            { x: 10, y: 1 },
            { x: 20, y: Number.NaN },
            { x: 30, y: 0 },
            { x: 40, y: 2 },
          ],
        },
      ],
    })
    const svg = parseXml(text)
    const [group] = seriesGroups(svg)
    expect(group?.attrs['data-series']).toBe(`x<&>"'y`)
    expect(circles(group as XmlElement)).toHaveLength(2)
    expect(findAll(svg, 'text')[0]?.text).toBe('a <b> & "c"')
    expect(text).not.toContain('NaN')
  })

  it('draws an empty or single-point chart without NaN coordinates', () => {
    for (const series of [[], [{ name: 'one', points: [{ x: 20, y: 5 }] }]]) {
      for (const xLog of [true, false]) {
        const text = lineChartSvg({ ...CHART, xLog, series })
        parseXml(text)
        expect(text).not.toMatch(/NaN|Infinity/)
      }
    }
  })
})

describe('formatNumber', () => {
  it('separates thousands and keeps 3 significant digits below 100', () => {
    expect([10_000, 1234.5, 150, 12.345, 0.012345, 0].map(formatNumber)).toEqual([
      '10,000',
      '1,235',
      '150',
      '12.3',
      '0.0123',
      '0',
    ])
  })
})

describe('parseXml (the checker the chart tests rely on)', () => {
  it.each([
    ['crossed tags', '<a><b></a></b>'],
    ['unclosed element', '<a><b></b>'],
    ['unquoted attribute', '<a x=1/>'],
    ['repeated attribute', '<a x="1" x="2"/>'],
    ['raw ampersand', '<a>1 & 2</a>'],
    ['raw < in an attribute', '<a x="<"/>'],
    ['two roots', '<a/><b/>'],
    ['text outside the root', '<a/>junk'],
  ])('refuses %s', (_, xml) => {
    expect(() => parseXml(xml)).toThrow()
  })

  it('accepts a declaration, comments, entities and nesting', () => {
    const root = parseXml(
      '<?xml version="1.0"?>\n<!-- c --><a k="&lt;&#65;"><b>x &amp; y</b><c/></a>\n',
    )
    expect(root.attrs['k']).toBe('<A')
    expect(root.children.map((c) => c.name)).toEqual(['b', 'c'])
    expect(root.children[0]?.text).toBe('x & y')
  })
})

import type { JSX } from 'preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import UPlot from 'uplot'
import { call, type InspectionEntry } from './api.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
/** Pages of 1,000 read back when the page opens: the inspection ring holds 10,000 by default. */
const MAX_PAGES = 10

/**
 * The last hour of a mock service from its inspection ring, read once through the analytics API
 * (newest first, until an entry is older than an hour), then kept current by the live stream.
 */
export async function loadLastHour(
  listUrl: (skip: number, limit: number) => string,
): Promise<InspectionEntry[]> {
  const since = Date.now() - HOUR
  const out: InspectionEntry[] = []
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await call<InspectionEntry[]>('GET', listUrl(page * 1000, 1000))
    out.push(...r.result.filter((e) => e.timestamp >= since))
    if (r.result.length < 1000 || r.result.some((e) => e.timestamp < since)) break
  }
  return out
}

interface Series {
  minutes: number[]
  rate: number[]
  classes: number[][]
  p50: Array<number | null>
  p95: Array<number | null>
  p99: Array<number | null>
}

/** Per-minute buckets of the last hour: requests per second, status classes, latency percentiles. */
function bucketize(entries: readonly InspectionEntry[], now: number): Series {
  const end = Math.floor(now / MINUTE) * MINUTE
  const start = end - 59 * MINUTE
  const counts = new Array<number>(60).fill(0)
  const classes = [0, 1, 2, 3].map(() => new Array<number>(60).fill(0))
  const durations: number[][] = Array.from({ length: 60 }, () => [])
  for (const e of entries) {
    const i = Math.floor((e.timestamp - start) / MINUTE)
    if (i < 0 || i >= 60) continue
    counts[i] = (counts[i] ?? 0) + 1
    const cls = Math.min(Math.max(Math.floor((e.statusCode ?? 0) / 100) - 2, 0), 3)
    const row = classes[cls]
    if (row !== undefined) row[i] = (row[i] ?? 0) + 1
    if (typeof e.durationMs === 'number') durations[i]?.push(e.durationMs)
  }
  const pct = (q: number) =>
    durations.map((d) => {
      if (d.length === 0) return null
      const sorted = [...d].sort((a, b) => a - b)
      return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? null
    })
  return {
    minutes: counts.map((_, i) => (start + i * MINUTE) / 1000),
    rate: counts.map((c) => Math.round((c / 60) * 100) / 100),
    classes,
    p50: pct(0.5),
    p95: pct(0.95),
    p99: pct(0.99),
  }
}

function Chart({
  title,
  labels,
  colors,
  data,
  unit,
}: {
  title: string
  labels: string[]
  colors: string[]
  data: UPlot.AlignedData
  unit: string
}): JSX.Element {
  const box = useRef<HTMLDivElement>(null)
  const chart = useRef<UPlot | null>(null)
  useEffect(() => {
    if (box.current === null) return
    chart.current = new UPlot(
      {
        width: Math.max(280, Math.min(560, box.current.clientWidth || 360)),
        height: 180,
        // Points too: a minute with traffic between quiet ones has no line to draw.
        series: [
          {},
          ...labels.map((label, i) => ({
            label,
            stroke: colors[i] ?? '#0b4fa8',
            width: 2,
            spanGaps: false,
            points: { show: true, size: 5 },
          })),
        ],
        axes: [{}, { label: unit, size: 60 }],
        scales: { x: { time: true } },
        legend: { show: true },
      },
      data,
      box.current,
    )
    return () => {
      chart.current?.destroy()
      chart.current = null
    }
  }, [])
  useEffect(() => {
    chart.current?.setData(data)
  }, [data])
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} aria-hidden="true" />
    </figure>
  )
}

/** Three charts of the last hour, with a text summary for screen readers and a quick read. */
export function TrafficCharts({ entries }: { entries: readonly InspectionEntry[] }): JSX.Element {
  const [now, setNow] = useState(Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 5000)
    return () => clearInterval(timer)
  }, [])
  const series = useMemo(() => bucketize(entries, now), [entries, Math.floor(now / 5000)])
  const total = series.rate.reduce((a, r) => a + r * 60, 0)
  const last = series.p95.filter((x) => x !== null).pop()
  return (
    <section aria-labelledby="charts-heading" class="charts">
      <h2 id="charts-heading">Last hour</h2>
      <p>
        {Math.round(total)} requests in the last hour
        {last !== undefined && last !== null ? `; latest p95 latency ${last} ms` : ''}.
      </p>
      <div class="chart-row">
        <Chart
          title="Requests per second (per-minute average)"
          labels={['req/s']}
          colors={['#0b4fa8']}
          unit="req/s"
          data={[series.minutes, series.rate]}
        />
        <Chart
          title="Status classes (requests per minute)"
          labels={['2xx', '3xx', '4xx', '5xx']}
          colors={['#17612b', '#5b4300', '#a3161a', '#6a1b9a']}
          unit="requests"
          data={[series.minutes, ...series.classes]}
        />
        <Chart
          title="Latency percentiles (ms)"
          labels={['p50', 'p95', 'p99']}
          colors={['#0b4fa8', '#a35c00', '#a3161a']}
          unit="ms"
          data={[series.minutes, series.p50, series.p95, series.p99]}
        />
      </div>
    </section>
  )
}

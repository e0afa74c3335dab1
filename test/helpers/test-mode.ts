// How the current vitest project runs the suites that several projects share (vitest.config.ts
// sets both variables per project): which engine routes the scenario suite and the engine
// fuzzer exercise, and whether property tests run their full iteration counts. The fast loop
// (`npm run test:unit`, vitest `--mode quick`) runs the inline route only, with fewer iterations;
// `npm test` runs every route at the full counts. Outside a project both default to everything.

export type TestRoute = 'inline' | 'pool'

function routesFrom(value: string | undefined): readonly TestRoute[] {
  if (value === undefined || value === '') return ['inline', 'pool']
  const routes = value.split(',')
  for (const r of routes) {
    if (r !== 'inline' && r !== 'pool') throw new Error(`PATCHLOOM_TEST_ROUTES: unknown route ${r}`)
  }
  return routes as TestRoute[]
}

/** The engine routes this project runs the shared suites on. */
export const TEST_ROUTES: readonly TestRoute[] = routesFrom(process.env['PATCHLOOM_TEST_ROUTES'])

/** True in the fast loop, where property tests run a tenth of their iterations. */
export const QUICK = process.env['PATCHLOOM_TEST_QUICK'] === '1'

/** `full` iterations, or a tenth of them (at least `min`) in the fast loop. */
export function fuzzRuns(full: number, min = 10): number {
  return QUICK ? Math.min(full, Math.max(min, Math.ceil(full / 10))) : full
}

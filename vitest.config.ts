import { defineConfig } from 'vitest/config'

// Two projects (house style §6): `unit` runs from source; `e2e` needs `npm run build` first
// because it drives the built CLI and real worker threads loaded from dist/.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'test/unit/**/*.test.ts',
            'test/contract/**/*.test.ts',
            'test/fuzz/**/*.test.ts',
            'test/*.test.ts',
          ],
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
    ],
  },
})

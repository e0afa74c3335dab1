// Logging seam. The library never prints: it reports dotted, stable event names with plain-data
// fields to a Logger the caller supplies (silent by default).
export type LogFields = Readonly<Record<string, string | number | boolean | null>>

export interface Logger {
  debug(event: string, fields?: LogFields): void
  warn(event: string, fields?: LogFields): void
}

export const silentLogger: Logger = {
  debug: () => undefined,
  warn: () => undefined,
}

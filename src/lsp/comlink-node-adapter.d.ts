// Types for comlink's Node adapter. comlink 4.4.2 ships node-adapter.d.ts beside the .mjs, but
// under "moduleResolution": "nodenext" a .mjs import looks for .d.mts, so TypeScript finds none
// (GoogleChromeLabs/comlink#508 and comlink#675). This mirrors the shipped declaration with Node's
// listener shape instead of DOM's EventListener, which this project's lib does not include.
declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink'

  export interface NodeEndpoint {
    postMessage(message: unknown, transfer?: readonly unknown[]): void
    on(type: string, listener: (value: unknown) => void): unknown
    off(type: string, listener: (value: unknown) => void): unknown
    start?: () => void
  }

  export default function nodeEndpoint(endpoint: NodeEndpoint): Endpoint
}

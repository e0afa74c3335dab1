import { wrap, expose } from 'comlink'
import * as C2 from 'comlink/dist/esm/comlink.mjs'
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs'
import { Worker, parentPort } from 'node:worker_threads'
const w = new Worker('x')
export const a = wrap<{ f(): number }>(nodeEndpoint(w))
if (parentPort) expose({}, nodeEndpoint(parentPort))
export const b = C2

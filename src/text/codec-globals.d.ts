// TextDecoder/TextEncoder are WHATWG globals present in every runtime patchloom targets (Node,
// browsers, Deno), but they live in lib.dom, which the pure core does not load (types: []).
// Declaring just what we use keeps tsconfig.core.json free of Node and DOM types. See D-004.
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean })
  decode(input?: Uint8Array): string
}
declare class TextEncoder {
  encode(input?: string): Uint8Array
  encodeInto(input: string, destination: Uint8Array): { read: number; written: number }
}

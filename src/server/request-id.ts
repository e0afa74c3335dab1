// Request ids: one per tool call, in the result's structuredContent (`request_id`) and in the
// call's log line, so a harness can quote it in a bug report and an operator can find the line.
// A client may send its own as an X-Request-Id header (HTTP) when it is a short safe token;
// otherwise the service makes one: a random prefix per server and a counter, no syscall per call.
import { randomBytes } from 'node:crypto'

/** The HTTP header a client's own request id comes in (lower case, as Node gives headers). */
export const REQUEST_ID_HEADER = 'x-request-id'

/** What a client's request id may be: 1-64 letters, digits and . _ : - (safe in logs and JSON). */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,64}$/

/** The client's request id from a header value, or undefined when absent or not a safe token. */
export function acceptedRequestId(
  header: string | readonly string[] | undefined,
): string | undefined {
  return typeof header === 'string' && SAFE_ID.test(header) ? header : undefined
}

/** A source of ids unique to it: `<8 hex digits>-<counter in base 36>`. */
export function requestIdSource(): () => string {
  const prefix = randomBytes(4).toString('hex')
  let next = 0
  return () => `${prefix}-${(next++).toString(36)}`
}

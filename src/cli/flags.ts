// How every `patchloom` command reads its argv: a command's flags are a table (flag-table.ts
// holds them all) and readFlags turns argv into their values and the positional arguments, or
// into one USAGE_INVALID failure worded the same whichever command it is. Accepts `--flag value`
// and `--flag=value`; `--` ends the flags; a lone `-` is positional; a value that starts with '-'
// needs the `=` spelling. The value readers below (text, positive, between, oneOf, shaped) word
// a bad value. Nothing here throws on what the user typed.
import { errorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'

/** A flag's value read from its text, or the sentence that says what is wrong with it. */
export type Converted<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string }

/** Reads the text given to `flag` (as spelled on the command line). */
export type Convert<T> = (text: string, flag: string) => Converted<T>

/** A flag that takes a value: one (the last given wins) or, with `list`, every one given. */
export interface ValueFlag<T> {
  readonly value: Convert<T>
  readonly list?: true
}

/** A flag without a value: true when given. */
export interface Switch {
  readonly value?: undefined
  readonly list?: undefined
}

/** Another spelling of the flag `alias`, read into its slot (with its own reading if given). */
export interface Alias {
  readonly alias: string
  readonly value?: Convert<unknown>
}

export type FlagSpec = ValueFlag<unknown> | Switch | Alias

/** A command's flags by spelling (`--root`, `-n`). */
export type FlagTable = Readonly<Record<string, FlagSpec>>

type ValueOf<S> =
  S extends ValueFlag<infer T>
    ? S extends { readonly list: true }
      ? readonly T[]
      : T | undefined
    : boolean

type Slots<T extends FlagTable> = { [K in keyof T]: T[K] extends Alias ? never : K }[keyof T]

/** What a table reads to: a switch is a boolean, a value flag its value or undefined, a list a list. */
export type FlagValues<T extends FlagTable> = { readonly [K in Slots<T>]: ValueOf<T[K]> }

export interface ReadFlags<T extends FlagTable> {
  readonly values: FlagValues<T>
  readonly positionals: readonly string[]
  /** The flags given, as spelled, in order. */
  readonly given: readonly string[]
}

export interface Reading {
  /** The command as typed (`undo`, `queue clean`), or null while it is not known. */
  readonly command: string | null
  /** Every flag some command has: another command's flag is "not valid with" this one. */
  readonly known: ReadonlySet<string>
  /** A value flag given twice: the last one wins, or it is a mistake. */
  readonly repeats: 'last' | 'refuse'
  /** A positional argument's mistake (index counts positionals only), or undefined to keep it. */
  readonly positional?: (arg: string, index: number) => string | undefined
  /** Appended on lines of its own to every mistake: the command's usage. */
  readonly usage?: string
}

/** The USAGE_INVALID failure every command reports a bad command line with. */
export function usageFailure(message: string, usage?: string): Result<never> {
  return fail(errorData('USAGE_INVALID', usage === undefined ? message : `${message}\n${usage}`))
}

/** The wording for a flag another command has (readFlags uses it; so do per-command rules). */
export function notValidWith(flag: string, command: string): string {
  return `Flag ${flag} is not valid with ${command}.`
}

/** The wording for a positional argument too many: `Unexpected argument 'b'; <why>.` */
export function unexpectedArgument(arg: string, why: string): string {
  return `Unexpected argument '${arg}'; ${why}.`
}

/** The wording for a value of the wrong shape: `Flag --x needs <what>; got '<text>'.` */
export function needs(flag: string, what: string, text: string): string {
  return `Flag ${flag} needs ${what}; got '${text}'.`
}

/** Reads argv against `table`; the first mistake, left to right, is the failure. */
export function readFlags<T extends FlagTable>(
  argv: readonly string[],
  table: T,
  reading: Reading,
): Result<ReadFlags<T>> {
  const mistake = (message: string): Result<never> => usageFailure(message, reading.usage)
  const values: Record<string, unknown> = {}
  for (const [name, spec] of Object.entries(table)) {
    if ('alias' in spec) continue
    values[name] = spec.value === undefined ? false : spec.list === true ? [] : undefined
  }
  const positionals: string[] = []
  const given: string[] = []
  const seen = new Set<string>()
  let flagsDone = false
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? ''
    if (!flagsDone && arg === '--') {
      flagsDone = true
      continue
    }
    if (flagsDone || arg === '-' || !arg.startsWith('-')) {
      const wrong = reading.positional?.(arg, positionals.length)
      if (wrong !== undefined) return mistake(wrong)
      positionals.push(arg)
      continue
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1
    const name = eq === -1 ? arg : arg.slice(0, eq)
    const inline = eq === -1 ? null : arg.slice(eq + 1)
    const spec = table[name]
    if (spec === undefined) {
      const command = reading.known.has(name) ? reading.command : null
      return mistake(command === null ? `Unknown flag '${name}'.` : notValidWith(name, command))
    }
    const slot = 'alias' in spec ? spec.alias : name
    const own = table[slot]
    if (own === undefined || 'alias' in own) throw new Error(`flag ${name}: no slot ${slot}`)
    given.push(name)
    const convert = spec.value ?? own.value
    if (convert === undefined) {
      if (inline !== null) return mistake(`Flag ${name} takes no value.`)
      values[slot] = true
      continue
    }
    let text = inline
    if (text === null) {
      const next = argv[index + 1]
      if (next === undefined || (next.startsWith('-') && next !== '-'))
        return mistake(`Flag ${name} needs a value.`)
      text = next
      index++
    }
    const read = convert(text, name)
    if (!read.ok) return mistake(read.message)
    if (own.list === true) {
      ;(values[slot] as unknown[]).push(read.value)
      continue
    }
    if (seen.has(slot) && reading.repeats === 'refuse')
      return mistake(`Flag ${name} is given twice.`)
    seen.add(slot)
    values[slot] = read.value
  }
  return ok({ values: values as FlagValues<T>, positionals, given })
}

/**
 * The index of the first positional argument (a command word), skipping the values of `table`'s
 * value flags; -1 when there is none. A flag not in the table is taken to have no value.
 */
export function firstPositional(argv: readonly string[], table: FlagTable): number {
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? ''
    if (arg === '--') return index + 1 < argv.length ? index + 1 : -1
    if (arg === '-' || !arg.startsWith('-')) return index
    if (arg.startsWith('--') && arg.includes('=')) continue
    const spec = table[arg]
    const own = spec !== undefined && 'alias' in spec ? table[spec.alias] : spec
    if (own?.value !== undefined) index++
  }
  return -1
}

const yes = <T>(value: T): Converted<T> => ({ ok: true, value })
const no = (message: string): Converted<never> => ({ ok: false, message })

/** Any text but the empty one: `Flag --root needs a directory.` for `--root=`. */
export function text(what: string): Convert<string> {
  return (value, flag) => (value === '' ? no(`Flag ${flag} needs ${what}.`) : yes(value))
}

/** `convert`, with its value turned into another (a directory into a served root, say). */
export function mapped<A, B>(convert: Convert<A>, to: (value: A) => B): Convert<B> {
  return (value, flag) => {
    const read = convert(value, flag)
    return read.ok ? yes(to(read.value)) : read
  }
}

/** A positive whole number: digits without a leading zero, at most 2^53 - 1. */
export const positive: Convert<number> = (value, flag) => {
  const n = /^[1-9][0-9]*$/.test(value) ? Number(value) : Number.NaN
  return Number.isSafeInteger(n) ? yes(n) : no(needs(flag, 'a positive whole number', value))
}

/** A whole number from `min` to `max`, in digits. */
export function between(min: number, max: number): Convert<number> {
  return (value, flag) => {
    const n = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN
    return n >= min && n <= max
      ? yes(n)
      : no(needs(flag, `a whole number from ${min} to ${max}`, value))
  }
}

/** One of `choices`: `Unknown <noun> 'x'; use <spoken>.`, spoken as "a, b or c" unless given. */
export function oneOf<T extends string>(
  choices: readonly T[],
  noun: string,
  spoken: string = speak(choices),
): Convert<T> {
  return (value) => {
    const chosen = choices.find((c) => c === value)
    return chosen === undefined ? no(`Unknown ${noun} '${value}'; use ${spoken}.`) : yes(chosen)
  }
}

/** A value `read` makes sense of (undefined when it cannot): `Flag --x needs <what>; got '…'.` */
export function shaped<T>(what: string, read: (value: string) => T | undefined): Convert<T> {
  return (value, flag) => {
    const got = read(value)
    return got === undefined ? no(needs(flag, what, value)) : yes(got)
  }
}

function speak(words: readonly string[]): string {
  return words.length < 2
    ? words.join('')
    : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1] ?? ''}`
}

// The text editor tool's versions (their tool names and commands) and the check of one tool_use
// input: the model's JSON, untrusted. A missing or ill-typed field, or a command the version
// lacks, is a message in the tool's own words for an is_error result, never a throw.

/** The text editor tool's versions, oldest first. */
export const TEXT_EDITOR_VERSIONS = [
  'text_editor_20241022',
  'text_editor_20250124',
  'text_editor_20250429',
  'text_editor_20250728',
] as const

export type TextEditorVersion = (typeof TEXT_EDITOR_VERSIONS)[number]

/** The tool name each version's definition and tool_use blocks carry. */
export type TextEditorToolName<V extends TextEditorVersion = TextEditorVersion> = V extends
  'text_editor_20241022' | 'text_editor_20250124'
  ? 'str_replace_editor'
  : 'str_replace_based_edit_tool'

/** One command of the tool, as the model sends it in a tool_use block's `input`. */
export type TextEditorCommand =
  | {
      readonly command: 'view'
      readonly path: string
      /** [first, last] line, 1-based; last -1 reads to the end. Files only. */
      readonly view_range?: readonly [number, number]
    }
  | { readonly command: 'create'; readonly path: string; readonly file_text: string }
  | {
      readonly command: 'str_replace'
      readonly path: string
      readonly old_str: string
      /** Left out: old_str is deleted. */
      readonly new_str?: string
    }
  | {
      readonly command: 'insert'
      readonly path: string
      /** The line to insert after: 0 is the top of the file. */
      readonly insert_line: number
      readonly new_str: string
    }
  | { readonly command: 'undo_edit'; readonly path: string }

export type TextEditorCommandName = TextEditorCommand['command']

const BASE: readonly TextEditorCommandName[] = ['view', 'create', 'str_replace', 'insert']
const WITH_UNDO: readonly TextEditorCommandName[] = [...BASE, 'undo_edit']

/** What each version is called and which commands it has. */
export const VERSION_FACTS: Readonly<
  Record<
    TextEditorVersion,
    {
      readonly name: TextEditorToolName
      readonly commands: readonly TextEditorCommandName[]
      /** Whether the definition takes max_characters. */
      readonly maxCharacters: boolean
    }
  >
> = {
  text_editor_20241022: { name: 'str_replace_editor', commands: WITH_UNDO, maxCharacters: false },
  text_editor_20250124: { name: 'str_replace_editor', commands: WITH_UNDO, maxCharacters: false },
  text_editor_20250429: {
    name: 'str_replace_based_edit_tool',
    commands: BASE,
    maxCharacters: false,
  },
  text_editor_20250728: {
    name: 'str_replace_based_edit_tool',
    commands: BASE,
    maxCharacters: true,
  },
}

export function isVersion(value: unknown): value is TextEditorVersion {
  return (TEXT_EDITOR_VERSIONS as readonly unknown[]).includes(value)
}

export type Checked =
  | { readonly ok: true; readonly command: TextEditorCommand }
  | { readonly ok: false; readonly message: string }

/** The input as one of the version's commands, or what is wrong with it. */
export function checkInput(input: unknown, version: TextEditorVersion): Checked {
  const facts = VERSION_FACTS[version]
  const takes = `${facts.name} (${version}) takes ${listWords(facts.commands)}`
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return bad(`The input must be an object with a command and a path; ${takes}.`)
  }
  const fields = input as Readonly<Record<string, unknown>>
  const command = fields['command']
  if (typeof command !== 'string') {
    return bad(`The input has no command (a string); ${takes}.`)
  }
  if (!(facts.commands as readonly string[]).includes(command)) {
    if (command === 'undo_edit') {
      return bad(
        `undo_edit is not a command of ${version}, which takes ${listWords(facts.commands)}; to take an edit back, str_replace the new text with the old.`,
      )
    }
    return bad(`Unknown command ${shortJson(command)}: ${takes}.`)
  }
  const path = fields['path']
  if (typeof path !== 'string' || path.trim() === '') {
    return bad(
      `${command} needs path (a non-empty string): the file's path, absolute inside the workspace or relative to its root.`,
    )
  }
  switch (command as TextEditorCommandName) {
    case 'view': {
      const range = fields['view_range']
      if (range === undefined || range === null) return good({ command: 'view', path })
      if (
        !Array.isArray(range) ||
        range.length !== 2 ||
        !range.every((n) => Number.isSafeInteger(n))
      ) {
        return bad(
          `Invalid view_range ${shortJson(range)}: give two integers, [first_line, last_line], 1-based; last_line -1 reads to the end of the file.`,
        )
      }
      return good({ command: 'view', path, view_range: [range[0] as number, range[1] as number] })
    }
    case 'create': {
      const text = fields['file_text']
      if (typeof text !== 'string') {
        return bad('create needs file_text (a string): the whole content of the file.')
      }
      return good({ command: 'create', path, file_text: text })
    }
    case 'str_replace': {
      const oldStr = fields['old_str']
      const newStr = fields['new_str']
      if (typeof oldStr !== 'string' || oldStr === '') {
        return bad(
          `str_replace needs old_str (a non-empty string): the text to replace, copied exactly from the file${oldStr === '' ? '; to write a whole file, use create' : ''}.`,
        )
      }
      // Left out, new_str is empty: old_str is deleted (DECISIONS.md D-165).
      if (newStr !== undefined && typeof newStr !== 'string') {
        return bad('new_str must be a string: the text that replaces old_str.')
      }
      return good({
        command: 'str_replace',
        path,
        old_str: oldStr,
        ...(newStr === undefined ? {} : { new_str: newStr }),
      })
    }
    case 'insert': {
      const line = fields['insert_line']
      const newStr = fields['new_str']
      if (!Number.isSafeInteger(line)) {
        return bad(
          `insert needs insert_line (an integer): the line to insert after, 0 for the top of the file${line === undefined ? '' : ` (got ${shortJson(line)})`}.`,
        )
      }
      if (typeof newStr !== 'string') {
        return bad('insert needs new_str (a string): the text to insert.')
      }
      return good({ command: 'insert', path, insert_line: line as number, new_str: newStr })
    }
    case 'undo_edit':
      return good({ command: 'undo_edit', path })
  }
}

function good(command: TextEditorCommand): Checked {
  return { ok: true, command }
}

function bad(message: string): Checked {
  return { ok: false, message }
}

/** 'a, b and c'. */
export function listWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join('')
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1] as string}`
}

/** A model's value as JSON, cut short: it is echoed in an error the model reads. */
function shortJson(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value)
  return json.length > 60 ? `${json.slice(0, 60)}...` : json
}

// A strict little XML reader for tests of generated SVG: it throws on anything that is not
// well-formed (unbalanced or crossed tags, unquoted or repeated attributes, a raw `<` or a bad
// `&` entity in text or attribute values, text or a second element outside the root) and returns
// the element tree so a test can look for what the chart must contain. Not a general parser: no
// DOCTYPE, CDATA or processing instructions other than the leading `<?xml ...?>` declaration.

export interface XmlElement {
  readonly name: string
  readonly attrs: Readonly<Record<string, string>>
  readonly children: readonly XmlElement[]
  /** The element's own text (entities decoded), children's text excluded. */
  readonly text: string
}

const NAME = /^[A-Za-z_][\w.:-]*/
const ENTITY = /^&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);/

function decode(raw: string, where: string): string {
  let out = ''
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string
    if (c === '<') throw new Error(`raw '<' in ${where}`)
    if (c !== '&') {
      out += c
      continue
    }
    const m = ENTITY.exec(raw.slice(i))
    if (m === null) throw new Error(`bad entity in ${where}: ${raw.slice(i, i + 12)}`)
    const body = m[0].slice(1, -1)
    out +=
      body === 'amp'
        ? '&'
        : body === 'lt'
          ? '<'
          : body === 'gt'
            ? '>'
            : body === 'quot'
              ? '"'
              : body === 'apos'
                ? "'"
                : String.fromCodePoint(
                    body.startsWith('#x') ? parseInt(body.slice(2), 16) : parseInt(body.slice(1)),
                  )
    i += m[0].length - 1
  }
  return out
}

interface Open {
  name: string
  attrs: Record<string, string>
  children: XmlElement[]
  text: string
}

/** Parses `xml`, throwing an Error that says where it is not well-formed. */
export function parseXml(xml: string): XmlElement {
  let i = 0
  if (xml.startsWith('<?xml')) {
    const end = xml.indexOf('?>')
    if (end < 0) throw new Error('unterminated XML declaration')
    i = end + 2
  }
  const stack: Open[] = []
  let root: XmlElement | null = null
  while (i < xml.length) {
    if (xml.startsWith('<!--', i)) {
      const end = xml.indexOf('-->', i + 4)
      if (end < 0) throw new Error(`unterminated comment at ${i}`)
      i = end + 3
      continue
    }
    if (xml[i] === '<') {
      const close = xml[i + 1] === '/'
      let j = i + (close ? 2 : 1)
      const name = NAME.exec(xml.slice(j))?.[0]
      if (name === undefined) throw new Error(`bad tag name at ${i}`)
      j += name.length
      if (close) {
        while (/\s/.test(xml[j] ?? '')) j++
        if (xml[j] !== '>') throw new Error(`bad closing tag </${name} at ${i}`)
        const top = stack.pop()
        if (top === undefined || top.name !== name)
          throw new Error(`</${name}> at ${i} closes <${top?.name ?? 'nothing'}>`)
        const done: XmlElement = { ...top }
        if (stack.length === 0) {
          if (root !== null) throw new Error('a second root element')
          root = done
        } else stack[stack.length - 1]?.children.push(done)
        i = j + 1
        continue
      }
      const attrs: Record<string, string> = {}
      for (;;) {
        const space = /^\s*/.exec(xml.slice(j))?.[0].length ?? 0
        j += space
        if (xml.startsWith('/>', j) || xml[j] === '>') break
        if (space === 0) throw new Error(`no space before attribute in <${name}> at ${j}`)
        const attr = NAME.exec(xml.slice(j))?.[0]
        if (attr === undefined) throw new Error(`bad attribute in <${name}> at ${j}`)
        j += attr.length
        if (xml[j] !== '=') throw new Error(`attribute ${attr} of <${name}> has no value`)
        const quote = xml[j + 1]
        if (quote !== '"' && quote !== "'")
          throw new Error(`attribute ${attr} of <${name}> is not quoted`)
        const end = xml.indexOf(quote, j + 2)
        if (end < 0) throw new Error(`unterminated attribute ${attr} of <${name}>`)
        if (Object.hasOwn(attrs, attr)) throw new Error(`<${name}> repeats attribute ${attr}`)
        attrs[attr] = decode(xml.slice(j + 2, end), `attribute ${attr} of <${name}>`)
        j = end + 1
      }
      if (root !== null && stack.length === 0) throw new Error(`<${name}> after the root element`)
      const selfClosing = xml.startsWith('/>', j)
      const element: Open = { name, attrs, children: [], text: '' }
      if (selfClosing) {
        if (stack.length === 0) root = element
        else stack[stack.length - 1]?.children.push(element)
        i = j + 2
      } else {
        stack.push(element)
        i = j + 1
      }
      continue
    }
    const next = xml.indexOf('<', i)
    const raw = xml.slice(i, next < 0 ? xml.length : next)
    const text = decode(raw, 'text')
    const top = stack[stack.length - 1]
    if (top === undefined) {
      if (text.trim() !== '') throw new Error(`text outside the root element at ${i}`)
    } else top.text += text
    i = next < 0 ? xml.length : next
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1]?.name}> is never closed`)
  if (root === null) throw new Error('no root element')
  return root
}

/** Every element below (and including) `element` whose name is `name`, in document order. */
export function findAll(element: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = element.name === name ? [element] : []
  for (const child of element.children) out.push(...findAll(child, name))
  return out
}

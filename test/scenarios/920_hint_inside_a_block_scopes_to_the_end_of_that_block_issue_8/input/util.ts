export function first(): number {
  // setup
  const base = 1
  return base
}

export function second(): number {
  const extra = 2
  return extra
}

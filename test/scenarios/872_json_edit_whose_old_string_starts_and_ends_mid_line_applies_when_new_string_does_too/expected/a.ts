function f() {
  const total = computeAll(a,
    c)
  return total
}

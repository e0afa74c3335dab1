function f() {
  const total = compute(a)
  return total
}

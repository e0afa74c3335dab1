function f() {
  const total = compute(a,
    b)
  return total
}

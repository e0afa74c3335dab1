function f() {
  return compute(a)
}

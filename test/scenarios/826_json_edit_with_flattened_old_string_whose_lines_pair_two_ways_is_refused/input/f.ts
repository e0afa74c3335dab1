function f() {
  if (a) {
    b()
  }
  return c
}

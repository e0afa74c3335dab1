function a() {
  return 1
}

// b follows
function b() {
  return 2
}

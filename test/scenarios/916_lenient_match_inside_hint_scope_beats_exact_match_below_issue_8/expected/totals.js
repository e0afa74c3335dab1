function g() {
    let total = 1
    total += offset()
    return total
}

function h() {
  let total = 0
  return total
}

function g() {
    let total = 0
    return total
}

function h() {
  let total = 0
  return total
}

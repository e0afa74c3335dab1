export function area(r) {
  return Math.PI * r * r
}

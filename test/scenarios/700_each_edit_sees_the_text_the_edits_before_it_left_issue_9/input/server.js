export const name = "app"
export const port = 80

function start() {
  listen(port)
}

function stop() {
  close()
}

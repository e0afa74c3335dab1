export const name = "app"
export const port = 8080
export const host = "0.0.0.0"

function start() {
  listen(port, host)
  logger.info(`listening on ${host}:${port}`)
}

function stop() {
  close()
  logger.info('stopped')
}

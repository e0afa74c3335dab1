async function after() {
  try {
    return await run(changes, baseline)
  } catch (error) {
    return undefined
  }
}

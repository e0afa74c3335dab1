// One project.
export default defineConfig({
  test: {
    name: 'unit',
  },
})

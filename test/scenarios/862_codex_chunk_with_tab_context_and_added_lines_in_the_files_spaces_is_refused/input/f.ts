export default {
  projects: [
    {
      name: 'unit',
    },
  ],
}

export const greeting = 'hello'
export const answer = 43

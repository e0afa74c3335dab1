export interface Job {
  readonly op: string
  readonly source: string
}

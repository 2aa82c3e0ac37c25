/** Where a command writes: injected so that tests can capture it. */
export interface CommandIo {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
}

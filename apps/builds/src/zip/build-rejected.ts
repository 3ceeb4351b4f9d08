/** The upload is unusable; `message` is shown to the project owner as the build's `error`. */
export class BuildRejected extends Error {
  override readonly name = 'BuildRejected';
}

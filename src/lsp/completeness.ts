/**
 * `complete` for an answer from a session: false while the server still loads the project or is
 * unhealthy (the session decides, `answerGap`).
 */
export function completenessOf(session: { answerGap(): string | undefined }): {
  complete: boolean;
  incomplete_reason?: string;
} {
  const gap = session.answerGap();
  return gap === undefined ? { complete: true } : { complete: false, incomplete_reason: gap };
}

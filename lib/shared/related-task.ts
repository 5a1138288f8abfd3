// The `_meta` mark that ties a message to a task (2025-11-25 tasks): hub and backend worker
// both route a task's questions by it.
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** `params` marked with task `taskId` instead of the one they carry (the backend's id becomes the client's). */
export function withRelatedTask(params: Record<string, unknown>, taskId: string): Record<string, unknown> {
  const meta = params._meta !== null && typeof params._meta === 'object' ? (params._meta as Record<string, unknown>) : {};
  return { ...params, _meta: { ...meta, [RELATED_TASK]: { taskId } } };
}

/** The task id a message's params are marked with, if any. */
export function relatedTaskOf(params: Record<string, unknown>): string | undefined {
  const related = (params._meta as Record<string, { taskId?: unknown } | undefined> | undefined)?.[RELATED_TASK];
  return typeof related?.taskId === 'string' ? related.taskId : undefined;
}

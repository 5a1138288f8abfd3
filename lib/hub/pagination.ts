import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

export const PAGE_SIZE = 100;

// Opaque cursors: base64url of the next offset. A bad cursor is an InvalidParams error.
export function paginate<T>(all: readonly T[], cursor: string | undefined, pageSize = PAGE_SIZE): { page: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const offset = Number(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Number.isInteger(offset) || offset < 0 || offset > all.length) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor: ${JSON.stringify(cursor)}`);
    }
    start = offset;
  }
  const end = start + pageSize;
  return { page: all.slice(start, end), ...(end < all.length ? { nextCursor: Buffer.from(String(end)).toString('base64url') } : {}) };
}

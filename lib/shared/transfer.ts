// Bytes posted to another thread are transferred, not copied. A chunk that owns its whole buffer
// goes as it is; a view into a larger one (node's pooled reads, a slice of a stream's buffer) is
// copied first, or the transfer would take the whole buffer (and the other views of it) along.
export function transferable(chunk: Uint8Array): Uint8Array {
  return chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength && chunk.buffer instanceof ArrayBuffer
    ? chunk
    : // Uint8Array's slice copies; Buffer's would be another view.
      Uint8Array.prototype.slice.call(chunk);
}

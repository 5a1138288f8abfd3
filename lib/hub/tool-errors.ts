// The errors a call to a disabled or unknown tool gets, the same whichever way it is called (by
// its qualified name, or through the lazy tools' tool_schema and tool_invoke).
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { Code, rpcCode } from '../shared/errors.ts';

export function toolDisabledError(server: string, tool: string, qualified: string): ProtocolError {
  return new ProtocolError(
    rpcCode(Code.tool_disabled),
    `Tool ${qualified} is disabled by mcpServers.${server}.disabledTools; enable it with \`agent mcp tools enable ${server} ${tool}\``,
    { code: Code.tool_disabled, tool: qualified, disabled: true },
  );
}

/** A lazy tool's argument that is not what it takes: -32602, `data.code` bad_request. */
export function badArgument(message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message, { code: Code.bad_request });
}

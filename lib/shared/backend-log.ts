// A backend's MCP log message that reaches no client goes to the service log at its own severity
// (a backend's debug chatter stays out of an info log), its MCP level kept as `mcpLevel`: a second
// `level` field in a JSON line overrides pino's number for every reader. Pure.

/** The service log's level for an MCP log level (RFC 5424's eight, as MCP names them). */
export function serviceLevel(level: unknown): 'debug' | 'info' | 'warn' | 'error' {
  switch (level) {
    case 'debug':
      return 'debug';
    case 'warning':
      return 'warn';
    case 'error':
    case 'critical':
    case 'alert':
    case 'emergency':
      return 'error';
    default:
      return 'info';
  }
}

/** The fields of the service log line of a backend's log message. */
export function backendLogFields(params: { level?: unknown; logger?: unknown; data?: unknown }): { mcpLevel: unknown; logger: unknown; data: unknown } {
  return { mcpLevel: params.level, logger: params.logger, data: params.data };
}

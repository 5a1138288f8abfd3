// Client-facing names (decisions §9): `<server>_agent_<name>`, split on the first `_agent_`.
export const SEPARATOR = '_agent_';
export const MAX_TOOL_NAME_LENGTH = 64;

export function qualify(server: string, name: string): string {
  return `${server}${SEPARATOR}${name}`;
}

export function splitQualified(qualified: string): { server: string; name: string } | null {
  const at = qualified.indexOf(SEPARATOR);
  if (at <= 0) return null;
  return { server: qualified.slice(0, at), name: qualified.slice(at + SEPARATOR.length) };
}

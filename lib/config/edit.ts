// Edits of mcp.json made by the CLI (`agent mcp tools disable|enable`): the change is made with
// jsonc-parser's `modify` + `applyEdits` so everything else in the file keeps its bytes (content,
// key order, indentation, line endings); a backup goes to `<stateDir>/backups/` first, and the
// new text replaces the file atomically (temp file + rename beside the real file, through a
// symlink, keeping the file mode). Decisions §1; service.md "Tool filtering".
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write.ts';
import { BACKUP_DIR_NAME, BACKUPS_KEPT, backupConfig } from './backups.ts';
import { ConfigEditError, type PlannedEdit, planToolEdit, type ToolAction } from './edit-plan.ts';

export type ToolEditOutcome = PlannedEdit & {
  changed: boolean;
  /** The backup written before the change (absent when nothing changed). */
  backup?: string;
};

export type ToolEditRequest = { file: string; stateDir: string; server: string; tool: string; action: ToolAction; now?: () => Date; keepBackups?: number };

/**
 * Disables or enables a tool in mcp.json: reads the file, plans the edit, writes a backup and
 * replaces the file atomically. Nothing is written (no backup either) when the tool is already
 * in the requested state. A concurrent change of the file between read and rename is detected
 * and the edit is redone on the new content.
 */
export async function editToolState(request: ToolEditRequest): Promise<ToolEditOutcome> {
  const { file, stateDir, server, tool, action } = request;
  for (let attempt = 0; ; attempt++) {
    let raw: Buffer;
    let mode: number;
    try {
      raw = await fs.readFile(file);
      mode = (await fs.stat(file)).mode;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigEditError('unreadable', `Cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message}`, { cause: error });
    }
    const plan = planToolEdit(raw.toString('utf8'), server, tool, action, file);
    if (plan.text === undefined) return { ...plan, changed: false };
    let backup: string;
    try {
      backup = await backupConfig(file, stateDir, raw, mode, request.now?.() ?? new Date(), request.keepBackups ?? BACKUPS_KEPT);
    } catch (error) {
      throw new ConfigEditError('write_failed', `Cannot write a backup to ${path.join(stateDir, BACKUP_DIR_NAME)}: ${(error as Error).message}; ${file} is left unchanged`, { cause: error });
    }
    let written: boolean;
    try {
      written = await writeFileAtomic(file, plan.text, raw);
    } catch (error) {
      throw new ConfigEditError('write_failed', `Cannot write ${file}: ${(error as Error).message}; it is left unchanged`, { cause: error });
    }
    if (written) return { ...plan, changed: true, backup };
    if (attempt >= 4) throw new ConfigEditError('write_failed', `${file} keeps changing while being edited; try again`);
  }
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AppContext } from '../../app/context.js';
import { AuditFiles } from '../../integrations/audit-files.js';
import { processAlive } from '../../integrations/process-probe.js';
import type { QuestionWithSession } from '../../store/questions-store.js';
import type { QuestionEvent } from './questions-service.js';

/** Heartbeats are written as one line per this long, not one per beat. */
const HEARTBEAT_BATCH_MS = 10 * 60_000;

/**
 * The human-readable trail of the sessions that ask a person something: `sessions/<id>.jsonl`
 * in the home folder, a line per question, answer, cancellation, elicitation outcome, delivery
 * error, heartbeat batch and lifecycle event, whichever process saw it. Files of sessions that
 * ended, whose process is gone, or that stayed silent past `audit_archive_after_hours` move to
 * `sessions/archive/YYYY-MM-DD/` when a server starts and when a session's file is first written.
 */
export class AuditTrail {
  readonly files: AuditFiles;
  private readonly beats = new Map<string, { count: number; first: number; written: number }>();

  constructor(private readonly app: AppContext) {
    this.files = new AuditFiles(join(app.paths.home, 'sessions'), (problem) =>
      app.log.warn(problem.event, { file: problem.file, detail: problem.detail }),
    );
  }

  /** Records what happened to a question. */
  async question(event: QuestionEvent): Promise<void> {
    const q = event.question;
    const line =
      event.kind === 'asked'
        ? {
            type: 'question',
            question_id: q.id,
            question: q.question,
            options: q.options === null ? null : JSON.parse(q.options),
            label: q.label,
            urgency: q.urgency,
          }
        : event.kind === 'closed'
          ? closedLine(q)
          : { type: 'elicitation', question_id: q.id, outcome: q.elicitation };
    await this.write(q.session_id, line);
  }

  /** A delivery or channel error about one of the session's questions. */
  async error(sessionId: string, detail: Record<string, unknown>): Promise<void> {
    await this.write(sessionId, { type: 'error', ...detail });
  }

  /** The session's lifecycle (started, ended), for sessions that have a trail. */
  async lifecycle(sessionId: string, event: string, detail: Record<string, unknown> = {}): Promise<void> {
    if (!existsSync(this.files.fileOf(sessionId))) return;
    await this.flushBeats(sessionId);
    await this.write(sessionId, { type: 'lifecycle', event, ...detail });
  }

  /** Counts a heartbeat; written as one line per batch, for sessions that have a trail. */
  async heartbeat(sessionId: string): Promise<void> {
    const now = this.app.now();
    const beats = this.beats.get(sessionId) ?? { count: 0, first: now, written: now };
    beats.count += 1;
    this.beats.set(sessionId, beats);
    if (now - beats.written >= HEARTBEAT_BATCH_MS) await this.flushBeats(sessionId);
  }

  /** Archives the files of sessions that are over: ended, gone, unknown, or silent too long. */
  async archiveStale(): Promise<number> {
    const now = this.app.now();
    const silentMs = this.app.config.audit_archive_after_hours * 3_600_000;
    let moved = 0;
    for (const id of this.files.sessions()) {
      const row = await this.app.store.sessions.get(id);
      const over =
        !row ||
        row.status === 'ended' ||
        now - row.last_heartbeat > silentMs ||
        (row.host === this.app.host && row.pid !== null && !processAlive(row.pid, row.pid_start));
      if (over) {
        this.files.archive(id, now);
        moved++;
      }
    }
    return moved;
  }

  private async flushBeats(sessionId: string): Promise<void> {
    const beats = this.beats.get(sessionId);
    if (!beats || beats.count === 0) return;
    const now = this.app.now();
    this.beats.set(sessionId, { count: 0, first: now, written: now });
    if (!existsSync(this.files.fileOf(sessionId))) return;
    await this.write(sessionId, {
      type: 'heartbeats',
      count: beats.count,
      from: new Date(beats.first).toISOString(),
      to: new Date(now).toISOString(),
    });
  }

  private async write(sessionId: string, event: Record<string, unknown>): Promise<void> {
    const fresh = !existsSync(this.files.fileOf(sessionId));
    // Read first: the file's first line when it is new (or set aside as damaged).
    let metadata: Record<string, unknown>;
    try {
      metadata = await this.metadata(sessionId);
    } catch (error) {
      // Nothing here fails the operation it records.
      this.app.log.warn('audit.failed', {
        file: this.files.fileOf(sessionId),
        detail: (error as Error).message,
      });
      return;
    }
    this.files.append(sessionId, () => metadata, event);
    // A session's first line: the moment to clear out the files of sessions that are over.
    if (fresh) await this.archiveStale();
  }

  private async metadata(sessionId: string): Promise<Record<string, unknown>> {
    const row = await this.app.store.sessions.get(sessionId);
    return {
      session_id: sessionId,
      name: row?.name ?? null,
      client: row?.client ?? null,
      pid: row?.pid ?? null,
      host: row?.host ?? null,
      cwd: row?.worktree ?? null,
      branch: row?.branch ?? null,
      started_at: row ? new Date(row.created_at).toISOString() : null,
    };
  }
}

function closedLine(q: QuestionWithSession): Record<string, unknown> {
  const base = { question_id: q.id, at: q.closed_at === null ? null : new Date(q.closed_at).toISOString() };
  if (q.status === 'answered')
    return { type: 'answer', ...base, answer: q.answer, via: q.answered_via, by: q.answered_by };
  return { type: q.status, ...base };
}

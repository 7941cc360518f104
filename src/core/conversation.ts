/**
 * The worker ↔ reviewer dialogue, rendered from the review workflow's events in three formats:
 * `detailed` (every exchange with its content), `summary` (per work item: rounds, outcome, the
 * points raised) and `timeline` (one line per event).
 */

export interface DialogueEvent {
  seq: number;
  kind: string;
  work_item_id: string | null;
  actor: string;
  role: 'worker' | 'reviewer' | 'system';
  content: Record<string, unknown>;
  at: string;
}

export type ConversationFormat = 'detailed' | 'summary' | 'timeline';

/** The events that are part of the dialogue (not project bookkeeping). */
const DIALOGUE = new Set([
  'submitted',
  'sent_for_review',
  'opened',
  'reviewed',
  'suggestion_added',
  'responded',
  'updated',
  'suggestion_resolved',
  'phase_changed',
  'merged',
  'auto_approved',
]);

function said(e: DialogueEvent): string {
  const c = e.content;
  switch (e.kind) {
    case 'submitted':
      return `submitted ${c.type} "${c.title}" (v${c.version}, ${c.phase})`;
    case 'sent_for_review':
      return `sent the draft, v${c.version}, for review`;
    case 'opened':
      return `opened v${c.version} for review`;
    case 'reviewed': {
      const suggestions = (c.suggestions as Array<{ severity: string; title: string }> | undefined) ?? [];
      return `${c.verdict === 'approve' ? 'approved' : c.verdict === 'request_changes' ? 'requested changes on' : 'commented on'} v${c.version}${c.stale ? ' (a stale version)' : ''}: ${c.summary}${suggestions.length ? ` — ${suggestions.map((s) => `[${s.severity}] ${s.title}`).join('; ')}` : ''}`;
    }
    case 'suggestion_added': {
      const s = c.suggestion as { severity: string; title: string };
      return `suggested [${s.severity}] ${s.title}`;
    }
    case 'responded':
      return `responded (${c.action}): ${c.response}`;
    case 'updated':
      return `updated to v${c.version}: ${c.change_description}`;
    case 'suggestion_resolved':
      return `marked "${c.title}" ${c.resolution}${c.comment ? `: ${c.comment}` : ''}`;
    case 'phase_changed':
      return `moved it from ${c.from} to ${c.to}`;
    case 'merged':
      return `merged v${c.version}`;
    case 'auto_approved':
      return `approved v${c.version} automatically: ${c.summary}`;
    default:
      return e.kind;
  }
}

export function renderConversation(
  events: DialogueEvent[],
  titles: Map<string, string>,
  format: ConversationFormat,
) {
  const dialogue = events.filter((e) => DIALOGUE.has(e.kind));
  if (format === 'timeline') {
    const lines = dialogue.map(
      (e) =>
        `${e.at.slice(0, 19).replace('T', ' ')}  ${e.role.padEnd(8)} ${e.actor}: ${said(e)}${e.work_item_id ? `  [${e.work_item_id}]` : ''}`,
    );
    return {
      entries: dialogue.map((e) => ({
        at: e.at,
        role: e.role,
        actor: e.actor,
        work_item_id: e.work_item_id,
        text: said(e),
      })),
      text: lines.join('\n'),
    };
  }
  if (format === 'detailed') {
    const entries = dialogue.map((e) => ({
      seq: e.seq,
      at: e.at,
      role: e.role,
      actor: e.actor,
      action: e.kind,
      work_item_id: e.work_item_id,
      text: said(e),
      content: e.content,
    }));
    const text = entries
      .map((x) => {
        const body =
          x.action === 'submitted' || x.action === 'updated'
            ? `\n    ${String(x.content.content ?? '')
                .split('\n')
                .join('\n    ')}`
            : '';
        const suggestions =
          x.action === 'reviewed'
            ? ((x.content.suggestions as Array<Record<string, unknown>> | undefined) ?? [])
                .map(
                  (s) =>
                    `\n    - [${s.severity} ${s.type}] ${s.title}: ${s.explanation}${s.currentContent ? `\n      current:   ${s.currentContent}` : ''}${s.suggestedContent ? `\n      suggested: ${s.suggestedContent}` : ''}`,
                )
                .join('')
            : '';
        return `${x.at} ${x.role} ${x.actor} ${x.text}${suggestions}${body}`;
      })
      .join('\n');
    return { entries, text };
  }
  // summary: per work item
  const byItem = new Map<string, DialogueEvent[]>();
  for (const e of dialogue) {
    if (!e.work_item_id) continue;
    byItem.set(e.work_item_id, [...(byItem.get(e.work_item_id) ?? []), e]);
  }
  const entries = [...byItem.entries()].map(([id, es]) => {
    const reviews = es.filter((e) => e.kind === 'reviewed' || e.kind === 'auto_approved');
    const last = [...es]
      .reverse()
      .find((e) => e.kind === 'merged' || e.kind === 'reviewed' || e.kind === 'auto_approved');
    const outcome = !last
      ? 'awaiting review'
      : last.kind === 'merged'
        ? 'merged'
        : last.kind === 'auto_approved'
          ? 'approved (automatically)'
          : last.content.verdict === 'approve'
            ? 'approved'
            : last.content.verdict === 'request_changes'
              ? 'changes requested'
              : 'commented';
    return {
      work_item_id: id,
      title: titles.get(id) ?? id,
      rounds: reviews.length,
      versions: Math.max(1, ...es.map((e) => Number(e.content.version ?? 1))),
      outcome,
      participants: [...new Set(es.map((e) => `${e.actor} (${e.role})`))],
      points: es
        .filter((e) => e.kind === 'reviewed' || e.kind === 'responded' || e.kind === 'updated')
        .map((e) => `${e.actor}: ${said(e)}`),
    };
  });
  const text = entries
    .map(
      (x) =>
        `${x.title} (${x.work_item_id}): ${x.outcome} after ${x.rounds} review round(s), ${x.versions} version(s); ${x.participants.join(', ')}\n${x.points.map((p) => `  - ${p}`).join('\n')}`,
    )
    .join('\n');
  return { entries, text };
}

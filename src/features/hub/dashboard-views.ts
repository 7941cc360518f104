import { pathOf } from '../../core/claim-target.js';
import { globBudget, patternsOverlap } from '../../core/glob.js';
import type { SessionState } from '../../core/liveness.js';
import { pathTree, type TreeNode } from '../../core/path-tree.js';
import { projectLabel } from '../../core/project-label.js';
import { loadRealm } from '../../integrations/realm-files.js';
import type { PairConflict } from '../changes/prediction-types.js';
import type { ClaimView } from '../claims/claim-types.js';
import type { LandingView } from '../landing/landing-service.js';
import { stateOf } from '../sessions/liveness.js';
import type { Wiring } from '../tool-context.js';
import { type Timeline, Timelines } from './timeline.js';
import { type WorkSummary, type WorkView, workView } from './work-view.js';

const iso = (ms: number) => new Date(ms).toISOString();
/** A repository is stored by its git folder; people know it by its worktree. */

export interface ProjectLine {
  id: string;
  root: string;
  /** `named`: a project of the review workflow made by id, not a repository (it has no sessions of its own). */
  kind: string;
  sessions: number;
  claims: number;
  questions: number;
}

export interface QuestionItem {
  id: string;
  session_id: string;
  session: string;
  project_id: string;
  question: string;
  options: string[] | null;
  /** What the question is about, as the asker labelled it. */
  label: string | null;
  urgency: string;
  asked_at: string;
}

export interface SessionItem {
  id: string;
  name: string;
  state: SessionState;
  client: string | null;
  branch: string | null;
  worktree: string;
  host: string;
  pid: number | null;
  started_at: string;
  last_activity: string;
  active_claims: number;
  end_reason: string | null;
  /** Its agent's turn ended with nothing to go on with (idle since then); null: acting, or ended. */
  idle_since: string | null;
  /** Unread messages and pending notifications: what it has not been told yet. */
  unread: number;
}

/** A message's delivery to one recipient's agent, as the board shows it. */
export interface ReceiptItem {
  session: string;
  delivered_at: string | null;
  via: string | null;
  acted_at: string | null;
}

export interface ClaimItem extends ClaimView {
  holder_state: SessionState;
  in_conflict: boolean;
}

export interface Board {
  project: { id: string; root: string };
  sessions: SessionItem[];
  claims: ClaimItem[];
  tree: TreeNode<ClaimItem>;
  conflicts: Array<{ path: string; a: ClaimView; b: ClaimView }>;
  /** Conflicts predicted between live sessions' uncommitted changes, per pair and file. */
  predicted: PairConflict[];
  questions: QuestionItem[];
  /** Per session, a lane of what it did over the last hours. */
  timeline: Timeline;
  messages: Array<{
    id: string;
    from: string;
    to: string | null;
    content: string;
    at: string;
    receipts: ReceiptItem[];
  }>;
  decisions: Array<{
    id: string;
    by: string;
    category: string;
    title: string;
    description: string;
    at: string;
  }>;
  reviews: WorkSummary[];
  /** The landing queue (landing first, then waiting) and the latest outcomes. */
  landing: { queue: LandingView[]; recent: LandingView[] };
  notifications: Array<{
    id: string;
    session: string | null;
    type: string;
    state: string;
    count: number;
    at: string;
  }>;
}

export interface RealmLine {
  name: string;
  root: string;
  repos: string[];
  contracts: Array<{ domain: string; name: string; version: string; owner: string }>;
  problems: number;
  /** Why it could not be read, when it could not. */
  error: string | null;
}

/** How much of each list a page shows. */
/** Pattern pairs compared to mark collisions per pattern; past it a colliding claim is marked whole. */
const OVERLAP_CHECKS = 20_000;

/**
 * Whether a claim's pattern meets a pattern of a claim it collides with: (claim id, pattern) →
 * marked. Bounded: past `OVERLAP_CHECKS` comparisons or the glob budget, every pattern of a
 * colliding claim is.
 */
function collidingPatterns(
  conflicts: Array<{ a: ClaimView; b: ClaimView }>,
): (claimId: string, pattern: string) => boolean {
  const others = new Map<string, string[]>();
  for (const { a, b } of conflicts) {
    others.set(a.claim_id, [...(others.get(a.claim_id) ?? []), ...b.files]);
    others.set(b.claim_id, [...(others.get(b.claim_id) ?? []), ...a.files]);
  }
  let checks = 0;
  const budget = globBudget();
  return (claimId, pattern) => {
    const against = others.get(claimId);
    if (!against) return false;
    checks += against.length;
    if (checks > OVERLAP_CHECKS) return true;
    return against.some((other) => patternsOverlap(pathOf(pattern), pathOf(other), budget) !== null);
  };
}

export const BOARD_LIMITS = { projects: 100, sessions: 100, claims: 500, conflicts: 100, lines: 30 } as const;

/**
 * What the dashboard shows: every project at a glance, and one project's board. Each is a set of
 * reads, outside any transaction (a board may mix moments a few milliseconds apart).
 */
export class DashboardViews {
  private readonly timelines: Timelines;

  constructor(private readonly app: Wiring) {
    this.timelines = new Timelines(app);
  }

  async projects(): Promise<ProjectLine[]> {
    return (await this.app.store.dashboard.projects(BOARD_LIMITS.projects)).map((p) => ({
      id: p.id,
      root: projectLabel(p),
      kind: p.kind,
      sessions: p.sessions,
      claims: p.claims,
      questions: p.questions,
    }));
  }

  /** The realms this machine works with, each read from its folder. */
  async realms(): Promise<RealmLine[]> {
    return (await this.app.realm.registered()).slice(0, 20).map((r) => {
      try {
        const model = loadRealm(r.root);
        return {
          name: model.name,
          root: r.root,
          repos: [...model.repos.keys()],
          contracts: [...model.domains.values()].flatMap((d) =>
            [...d.contracts.values()].map((c) => ({
              domain: d.name,
              name: c.name,
              version: c.version,
              owner: c.owner,
            })),
          ),
          problems: model.problems.length,
          error: null,
        };
      } catch (error) {
        return {
          name: r.name ?? r.root,
          root: r.root,
          repos: [],
          contracts: [],
          problems: 0,
          error: (error as Error).message.slice(0, 300),
        };
      }
    });
  }

  /** Pending questions, of one project or of every one. */
  async questions(projectId: string | null): Promise<QuestionItem[]> {
    return (await this.app.store.dashboard.questions(projectId, BOARD_LIMITS.lines)).map((q) => ({
      id: q.id,
      session_id: q.session_id,
      session: q.session_name,
      project_id: q.project_id,
      question: q.question,
      options: q.options ? (JSON.parse(q.options) as string[]) : null,
      label: q.label,
      urgency: q.urgency,
      asked_at: iso(q.created_at),
    }));
  }

  /** A project's newest messages, each with who it reached, when, how, and when they next acted. */
  private async messagesWithReceipts(projectId: string): Promise<Board['messages']> {
    const { store } = this.app;
    const lines = await store.dashboard.messages(projectId, BOARD_LIMITS.lines);
    const receipts = await store.messages.receipts(lines.map((m) => m.id));
    return lines.map((m) => {
      const mine: ReceiptItem[] = receipts
        .filter((r) => r.message_id === m.id)
        .map((r) => ({
          session: r.session_name || r.session_id.slice(0, 8),
          delivered_at: iso(r.read_at),
          via: r.via,
          acted_at: r.acted_at === null ? null : iso(r.acted_at),
        }));
      if (m.to_session_id !== null && mine.length === 0)
        mine.push({ session: m.to_name ?? m.to_session_id, delivered_at: null, via: null, acted_at: null });
      return {
        id: m.id,
        from: m.from_name,
        to: m.to_session_id ? (m.to_name ?? m.to_session_id) : null,
        content: m.content,
        at: iso(m.created_at),
        receipts: mine,
      };
    });
  }

  /** One project's board; null when there is no such project. */
  async board(projectId: string): Promise<Board | null> {
    const { app } = this;
    const { store } = app;
    const project = await store.projects.get(projectId);
    if (!project) return null;
    const sessions: SessionItem[] = [];
    for (const s of await store.dashboard.sessions(projectId, BOARD_LIMITS.sessions)) {
      const live = s.status === 'active';
      sessions.push({
        id: s.id,
        name: s.name,
        state: stateOf(app, s),
        client: s.client,
        branch: s.branch,
        worktree: s.worktree,
        host: s.host,
        pid: s.pid,
        started_at: iso(s.created_at),
        last_activity: iso(s.last_heartbeat),
        active_claims: s.active_claims,
        end_reason: s.end_reason,
        idle_since: live && s.turn_ended_at !== null ? iso(s.turn_ended_at) : null,
        unread: live
          ? (await store.messages.unreadCount(s)) + (await store.notifications.pendingCount(s.id))
          : 0,
      });
    }
    const { conflicts } = await app.claims.projectConflicts(projectId, BOARD_LIMITS.conflicts);
    const conflicting = new Set(conflicts.flatMap((c) => [c.a.claim_id, c.b.claim_id]));
    const states = new Map<string, SessionState>();
    const holderState = async (sessionId: string): Promise<SessionState> => {
      let state = states.get(sessionId);
      if (state === undefined) {
        const row = await store.sessions.get(sessionId);
        state = row ? stateOf(app, row) : 'ended';
        states.set(sessionId, state);
      }
      return state;
    };
    const claims: ClaimItem[] = [];
    const active = store.claims.iterate(
      { projectId, sessionId: null, status: 'active' },
      BOARD_LIMITS.claims,
    );
    for await (const c of active) {
      const view = app.claims.view(c);
      claims.push({
        ...view,
        holder_state: await holderState(c.session_id),
        in_conflict: conflicting.has(c.id),
      });
      if (claims.length === BOARD_LIMITS.claims) break;
    }
    // A collision is marked on the patterns two claims really share, not on all of a claim's files.
    const collides = collidingPatterns(conflicts);
    const tree = pathTree(
      claims.flatMap((c) =>
        c.files.map((pattern) => ({ pattern, item: { ...c, in_conflict: collides(c.claim_id, pattern) } })),
      ),
      (c) => c.in_conflict,
    );
    return {
      project: { id: project.id, root: projectLabel(project) },
      sessions,
      claims,
      tree,
      conflicts,
      predicted: (await app.changes.betweenSessions(projectId, BOARD_LIMITS.conflicts)).pairs,
      questions: await this.questions(projectId),
      timeline: await this.timelines.of(projectId),
      landing: await app.landing.status(projectId, BOARD_LIMITS.lines),
      messages: await this.messagesWithReceipts(projectId),
      decisions: (await store.dashboard.decisions(projectId, BOARD_LIMITS.lines)).map((d) => ({
        id: d.id,
        by: d.session_name,
        category: d.category,
        title: d.title,
        description: d.description,
        at: iso(d.created_at),
      })),
      reviews: (await store.dashboard.work(projectId, BOARD_LIMITS.lines)).map((w) => ({
        id: w.id,
        title: w.title,
        type: w.type,
        status: w.status,
        version: w.version,
        by: w.submitted_by_name,
        at: iso(w.updated_at),
      })),
      notifications: (await store.dashboard.notifications(projectId, BOARD_LIMITS.lines)).map((n) => ({
        id: n.id,
        session: n.session_name,
        type: n.type,
        state: n.state,
        count: n.count,
        at: iso(n.created_at),
      })),
    };
  }

  /** A work item's page: its content against the previous version, reviews, suggestions at their lines. */
  work(workItemId: string): Promise<WorkView | null> {
    return workView(this.app, workItemId);
  }
}

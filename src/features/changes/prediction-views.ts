import { z } from 'zod';
import type { PredictedConflict } from './prediction-types.js';

const range = z.tuple([z.number(), z.number()]);
const hunk = z.object({
  base: range.describe('[first line, count] replaced in the base'),
  next: range.describe('[first line, count] written in its copy'),
  excerpt: z.string(),
});

/** One predicted conflict, as tools answer it. */
export const predictedConflict = z.object({
  session_id: z.string(),
  session_name: z.string(),
  level: z
    .enum(['textual', 'symbol', 'file', 'unknown', 'semantic'])
    .describe(
      'textual: git will conflict; symbol: both change one function (git merges, look); file: compared whole; unknown: different bases; semantic: git merges, the build breaks (an interface changed under a new use)',
    ),
  file: z.string(),
  symbols: z.array(z.string()),
  ours: z.array(hunk),
  theirs: z.array(hunk),
  why: z.string().optional(),
  semantic: z
    .object({
      symbol: z.string(),
      defined_in: z.string(),
      change: z.string().describe('how its interface changed'),
      before: z.string(),
      after: z.string().nullable(),
      used_in: z.string(),
      line: z.number(),
      use: z.string().describe('the line that uses it, quoted'),
      changed_by: z.enum(['you', 'them']),
    })
    .optional(),
  git: z
    .enum(['conflicts', 'merges'])
    .optional()
    .describe("both copies on this machine: git's own merge of the file"),
}) satisfies z.ZodType<PredictedConflict>;

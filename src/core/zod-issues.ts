import type { z } from 'zod';

/** A zod error as one line naming each bad field: `files: Too small…; "fils": unknown field`. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.join('.') : 'arguments';
      if (issue.code === 'unrecognized_keys')
        return `${where}: unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}

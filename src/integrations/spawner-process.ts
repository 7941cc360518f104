/**
 * The spawner of a long-lived server (built as dist/spawner.cjs; started by `programsApart` in
 * integrations/spawner.ts): a small process that runs the programs the server asks for (git) and
 * sends back what they wrote. Starting a program forks the process that starts it, and a fork
 * copies its page tables: 1.4 ms (up to 6) of a server of 136 MiB, with every session's call
 * waiting; here 0.9 ms, which holds no one's call. It ends when the server does (its channel
 * closes).
 */
import { runProgramHere } from './run-program.js';
import type { ProgramReply, ProgramRequest } from './spawner.js';

const send = (reply: ProgramReply) => {
  if (process.connected) process.send?.(reply);
};

process.on('message', (message: ProgramRequest) => {
  runProgramHere(message.file, message.args, message.options).then(
    (stdout) => send({ id: message.id, stdout }),
    (
      error: NodeJS.ErrnoException & { stdout?: string; stderr?: string; killed?: boolean; signal?: string },
    ) =>
      send({
        id: message.id,
        error: {
          message: error.message,
          code: error.code,
          killed: error.killed,
          signal: error.signal,
          stdout: error.stdout,
          stderr: error.stderr,
        },
      }),
  );
});
process.on('disconnect', () => process.exit(0));

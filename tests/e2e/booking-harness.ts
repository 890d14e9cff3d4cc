// The booking fixture server (tests/fixtures/asking-server.mjs: tools that ask the person, and a destructive one) and a
// fake Ollama that plans for it, shared by the elicitation tests of `cortex serve` and `cortex mcp`.
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception } from './ask-harness.js';

/** The booking server as a profile's mcp_servers entry. */
export const BOOKING_SERVER = `  - id: booking\n    command: ${process.execPath}\n    args: [${JSON.stringify(join(PROJECT_ROOT, 'tests/fixtures/asking-server.mjs'))}]\n    description: Table bookings\n`;

/**
 * Perception picks the booking server; a plan calls cancel_booking for "Cancel…", confirm_payment for "Pay the bill",
 * todays_specials for "…specials…" (answering with a markdown link the server's text chose), else book_table, and
 * answers with the tool's result or the error it met.
 */
export function startBookingLlm(): Promise<FakeLlmServer> {
  return startFakeOllamaServer({
    replies: (req) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(JSON.stringify({ intent: 'book', entities: [], tool_hint: '', selected_servers: ['booking'] }));
      // The question being answered (the memory section holds the session's earlier ones).
      const body = JSON.stringify(req.body);
      const task = body.slice(body.lastIndexOf('## The task'));
      if (task.includes('specials')) {
        // The restaurant's text decides where the link in the answer points.
        return ollamaChatReply(fenced('async function solve() { const s = await tools.todays_specials({}); return "FINAL_ANSWER: " + s.split(": ")[0] + ". See [the menu](" + s.split(": ")[1] + ")"; }'));
      }
      const tool = task.includes('Cancel') ? 'cancel_booking' : task.includes('Pay the bill') ? 'confirm_payment' : 'book_table';
      return ollamaChatReply(fenced(`async function solve() { try { return "FINAL_ANSWER: " + await tools.${tool}({}); } catch (e) { return "FINAL_ANSWER: not done: " + e.message; } }`));
    },
  });
}

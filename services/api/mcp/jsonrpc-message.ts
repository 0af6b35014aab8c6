/**
 * The one JSON-RPC message of a POST to `/mcp`, judged before the SDK reads it (issue 56 items 3 and 5):
 *
 * - a batch (a JSON array) is refused with `-32600 Invalid Request`: MCP 2025-06-18 removed batching, and a batch of
 *   100 messages for one token multiplied what a key's budget allows by 100;
 * - a `tools/call` whose `arguments` is not an object (a string, an array) is answered as the tool's error, naming
 *   the argument: the SDK's request schema would refuse it as `-32603` with a zod dump, which no assistant can act on.
 *
 * Everything else goes to the SDK as it came, parsed once here.
 */

/** What to do with a POST's body: hand the message to the SDK, or answer at once. */
export type Judged =
  | { readonly kind: 'message'; readonly message: unknown }
  /** Not JSON: the SDK answers it with its own `-32700 Parse error`. */
  | { readonly kind: 'unparsed' }
  | { readonly kind: 'answer'; readonly response: Response };

const JSON_TYPE = { 'Content-Type': 'application/json' };

/** A JSON-RPC error with no id, as the transport answers one it cannot attribute. */
function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: JSON_TYPE });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const kindOf = (v: unknown) => (Array.isArray(v) ? 'an array' : v === null ? 'null' : `a ${typeof v}`);

export function judgeMessage(text: string): Judged {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { kind: 'unparsed' };
  }
  if (Array.isArray(message)) {
    return { kind: 'answer', response: rpcError(400, -32600, 'Invalid Request: a JSON-RPC batch (an array of messages) is not accepted: MCP 2025-06-18 removed batching. Send one message per POST.') };
  }
  const badArguments = isObject(message) && message['method'] === 'tools/call' && 'id' in message ? argumentsProblem(message['params']) : undefined;
  if (badArguments && isObject(message)) {
    const result = { content: [{ type: 'text', text: badArguments }], isError: true };
    return { kind: 'answer', response: new Response(JSON.stringify({ jsonrpc: '2.0', id: message['id'], result }), { status: 200, headers: JSON_TYPE }) };
  }
  return { kind: 'message', message };
}

/** Why a `tools/call`'s params cannot be a tool's arguments, or undefined when they can. */
function argumentsProblem(params: unknown): string | undefined {
  if (!isObject(params)) return `tools/call takes params {"name": <tool>, "arguments": {…}}; got ${kindOf(params)}.`;
  if (typeof params['name'] !== 'string') return `tools/call needs params.name, the tool's name (see tools/list); got ${kindOf(params['name'])}.`;
  const args = params['arguments'];
  if (args === undefined || isObject(args)) return undefined;
  return `The argument "arguments" of ${params['name']} must be an object of its named arguments, e.g. {"resource": "Records"}; got ${kindOf(args)}.`;
}

import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { Message } from './messages.js';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface PageView {
  readonly messages: readonly Message[];
  /** The id to continue from with `/?before=`, when older messages exist. */
  readonly olderBefore?: number;
  /** Shown above the form when the last post was refused. */
  readonly problem?: string;
  /** What the visitor typed, kept when the post was refused. */
  readonly text?: string;
}

// Every interpolation below goes through hono/html's escaping; there is no raw() in this file on purpose.
const layout = (title: string, body: Html): Html => html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/board.css">
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;

const messageItem = (m: Message): Html => html`<li id="message-${m.id}">
<p class="text">${m.text}</p>
<p class="meta">#${m.id} · <time datetime="${m.date_posted}">${m.date_posted}</time></p>
</li>`;

/** The board: the form (with any problem and the kept text) and the messages, newest first. */
export function boardPage(view: PageView): Html {
  return layout(
    'Message board',
    html`<h1>Message board</h1>
<form method="post" action="/">
<label for="text">Your message (up to 255 characters)</label>
<textarea id="text" name="text" rows="3" required>${view.text ?? ''}</textarea>
${view.problem === undefined ? '' : html`<p class="problem" role="alert">${view.problem}</p>`}
<button type="submit">Post</button>
</form>
${
  view.messages.length === 0
    ? html`<p class="empty">No messages yet.</p>`
    : html`<ol class="messages">${view.messages.map(messageItem)}</ol>`
}
${view.olderBefore === undefined ? '' : html`<p><a href="/?before=${view.olderBefore}">Older messages</a></p>`}`,
  );
}

/** Errors on the page's own routes (bad `?before=`, 413, 403, 503) answer in HTML, not JSON. */
export function errorPage(status: number, message: string): Html {
  return layout(
    `Error ${status}`,
    html`<h1>Error ${status}</h1>
<p class="problem" role="alert">${message}</p>
<p><a href="/">Back to the board</a></p>`,
  );
}

// Served from /board.css because the Content-Security-Policy allows no inline styles or scripts.
export const BOARD_CSS = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
main{max-width:40rem;margin:2rem auto;padding:0 1rem}
form{display:grid;gap:.5rem;margin-bottom:2rem}
textarea{font:inherit;padding:.5rem}
button{justify-self:start;font:inherit;padding:.3rem 1rem}
.problem{color:#a4161a;font-weight:600}
.messages{list-style:none;padding:0}
.messages li{background:#fff;border:1px solid #d8dce1;border-radius:6px;padding:.5rem 1rem;margin-bottom:.75rem}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
.meta{color:#5c6670;font-size:.85rem;margin:.25rem 0 0}
`;

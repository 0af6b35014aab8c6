/** Test support: the check that an answer is the API's error body (errors.ts), never a stack or a bare message. */
import { expect } from 'vitest';
import { API_ERROR_CODES } from '../errors.js';

/** `text`, answered with `status` at `path`: the error body, with OGC's exception members under /v1/features. */
export function expectErrorBody(status: number, text: string, path: string): void {
  expect(text, path).not.toMatch(/\n\s+at /);
  const body = JSON.parse(text) as { errors: { status: string; code: string; detail: string }[]; code?: string; description?: string; requestId?: string };
  const [error] = body.errors;
  expect(error?.status, path).toBe(String(status));
  expect(Object.hasOwn(API_ERROR_CODES, error!.code), `${path}: code ${error!.code}`).toBe(true);
  expect(API_ERROR_CODES[error!.code as keyof typeof API_ERROR_CODES], path).toBe(status);
  expect(typeof error!.detail, path).toBe('string');
  // The id to quote when reporting it (middleware/request-id.ts), in every error the app answers.
  expect(typeof body.requestId, `${path}: requestId`).toBe('string');
  if (path.startsWith('/v1/features')) expect([body.code, typeof body.description], path).toEqual([error!.code, 'string']);
}

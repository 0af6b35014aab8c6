/** RFC 4180: quote a field containing a comma, a quote or a line break, doubling its quotes. */
export function csvField(value: string | null | undefined): string {
  if (value === null || value === undefined) return '';
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

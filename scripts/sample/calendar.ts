/**
 * Date and time strings by index, built once, so the hot loop formats nothing. Days count from 2000-01-01.
 * The field season (ice-free) is May 1 – Oct 31: 184 days every year.
 */
const FIRST_YEAR = 2000;
const LAST_YEAR = 2060;
export const SEASON_DAYS = 184;

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

const dates: string[] = [];
const yearStart: number[] = [];
for (let y = FIRST_YEAR; y <= LAST_YEAR; y++) {
  yearStart.push(dates.length);
  const days = (Date.UTC(y + 1, 0, 1) - Date.UTC(y, 0, 1)) / 86_400_000;
  for (let d = 0; d < days; d++) {
    const t = new Date(Date.UTC(y, 0, 1 + d));
    dates.push(`${y}-${pad2(t.getUTCMonth() + 1)}-${pad2(t.getUTCDate())}`);
  }
}

/** 'HH:MM:SS' and 'HH:MM' of each minute of the day. */
export const timesWithSeconds: readonly string[] = Array.from({ length: 1440 }, (_, m) => `${pad2(Math.floor(m / 60))}:${pad2(m % 60)}:00`);
export const timesShort: readonly string[] = Array.from({ length: 1440 }, (_, m) => `${pad2(Math.floor(m / 60))}:${pad2(m % 60)}`);

/** 'YYYY-MM-DD' of a day index. */
export function dateOf(day: number): string {
  const s = dates[day];
  if (s === undefined) throw new RangeError(`day ${day} is outside ${FIRST_YEAR}–${LAST_YEAR}`);
  return s;
}

/** Day index of January 1 of a year. */
export function dayOfYearStart(year: number): number {
  const d = yearStart[year - FIRST_YEAR];
  if (d === undefined) throw new RangeError(`year ${year} is outside ${FIRST_YEAR}–${LAST_YEAR}`);
  return d;
}

/** Day index of day `d` (0-based) of the field season of `year`. */
export function seasonDay(year: number, d: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return dayOfYearStart(year) + (leap ? 121 : 120) + d;
}

export const yearOfDay = (day: number): number => Number(dateOf(day).slice(0, 4));

/**
 * Durations: milliseconds in every parameter, state and API; seconds only in text for people.
 */

/** A duration in milliseconds, written in seconds to a tenth (`12.3 s`). */
export function secondsText(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

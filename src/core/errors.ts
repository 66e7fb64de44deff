/**
 * Small typed errors. Callers branch on the class, operators read the message.
 */
import type { ZodError } from 'zod';

export class SchedbrainError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad operator input: the API answers 400 with `field` and the message as reason. */
export class ValidationError extends SchedbrainError {
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

/** Converts a zod error to a ValidationError whose field is the full dotted path. */
export function zodToValidationError(err: ZodError, prefix: string): ValidationError {
  const i = err.issues[0];
  const path = [prefix, ...i.path.map(String)].filter((x) => x !== '').join('.');
  return new ValidationError(path || 'body', i.message);
}

/** The ResourceManager (or a shim) could not be reached, or answered 5xx / timed out. Retryable. */
export class RmUnavailableError extends SchedbrainError {
  readonly retryable = true;
}

/** The ResourceManager refused a request (4xx). Not retryable as is. */
export class RmRejectedError extends SchedbrainError {
  readonly retryable = false;
  constructor(
    message: string,
    readonly status: number,
    readonly body?: string,
  ) {
    super(message);
  }
}

/** The RM answered with a shape we do not understand (schema mismatch). */
export class RmProtocolError extends SchedbrainError {
  readonly retryable = false;
}

/** The scheduler configuration cannot be changed through the REST API (file-based store). */
export class ReadOnlySchedulerConfError extends SchedbrainError {
  readonly retryable = false;
}

/** A policy asked for something the backend cannot do (e.g. suspend without a shim). */
export class UnsupportedActionError extends SchedbrainError {
  readonly retryable = false;
}

/** The cluster's reservation system could not place a reservation; the message is its reason. */
export class ReservationRefusedError extends SchedbrainError {}

export class ConflictError extends SchedbrainError {
  constructor(
    message: string,
    readonly detail?: unknown,
  ) {
    super(message);
  }
}

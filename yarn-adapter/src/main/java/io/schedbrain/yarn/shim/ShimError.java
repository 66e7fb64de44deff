package io.schedbrain.yarn.shim;

/**
 * A request the shim refuses. Becomes the JSON body {@code {"error": code, "reason": reason}}
 * with the HTTP status; the refused request has changed nothing.
 */
public final class ShimError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public final int status;
  public final String code;

  public ShimError(int status, String code, String reason) {
    super(reason);
    this.status = status;
    this.code = code;
  }

  public static ShimError badRequest(String reason) {
    return new ShimError(400, "bad_request", reason);
  }
}

package hnative;

/** Assertions for the checks. Values compare by their string form, so both sides print alike. */
final class Expect {
  private Expect() {}

  static void eq(String what, Object expected, Object actual) throws Mismatch {
    if (!String.valueOf(expected).equals(String.valueOf(actual))) {
      throw new Mismatch(what + ": expected <" + expected + "> but got <" + actual + ">");
    }
  }

  static void isTrue(String what, boolean condition) throws Mismatch {
    if (!condition) {
      throw new Mismatch(what);
    }
  }

  interface Call {
    void run() throws Exception;
  }

  /**
   * Runs a call that must fail with an exception of the given class somewhere in its cause chain
   * (the client wraps server exceptions, for example in RetriesExhaustedException).
   * Returns that exception.
   */
  static <T extends Throwable> T throwsError(String what, Class<T> expected, Call call)
      throws Mismatch {
    try {
      call.run();
    } catch (Throwable t) {
      T found = find(t, expected);
      if (found != null) {
        return found;
      }
      throw new Mismatch(what + ": expected " + expected.getSimpleName() + " but got "
          + Show.error(t));
    }
    throw new Mismatch(what + ": expected " + expected.getSimpleName() + " but the call succeeded");
  }

  private static <T extends Throwable> T find(Throwable t, Class<T> wanted) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (wanted.isInstance(c)) {
        return wanted.cast(c);
      }
      if (c instanceof org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException e) {
        for (int i = 0; i < e.getNumExceptions(); i++) {
          T inner = find(e.getCause(i), wanted);
          if (inner != null) {
            return inner;
          }
        }
      }
    }
    return null;
  }
}

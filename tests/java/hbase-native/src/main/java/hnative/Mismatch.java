package hnative;

/** The first difference a check found between the expected and the actual answer. */
final class Mismatch extends Exception {
  Mismatch(String message) {
    super(message);
  }
}

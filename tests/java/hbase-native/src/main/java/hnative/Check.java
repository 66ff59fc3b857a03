package hnative;

/** One named check: a body that throws when the server's answer is not HBase's. */
record Check(String name, Body body) {
  interface Body {
    void run(Run r) throws Exception;
  }

  /** The group a check belongs to: the part of its name before the first dot. */
  String group() {
    return name.substring(0, name.indexOf('.'));
  }
}

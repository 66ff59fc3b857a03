package hnative;
import java.util.List;
final class ScanChecks {
  static List<Check> all() { return List.of(); }
}

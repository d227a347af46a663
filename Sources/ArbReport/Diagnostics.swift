import ArbCore

extension SweepResultsError: Diagnostic {
  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { true }
}

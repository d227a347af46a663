import ArbCore

extension FundingError: Diagnostic {
  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { false }
}

extension ScenarioError: Diagnostic {
  public var kind: DiagnosticKind { .usage }
  public var isFramed: Bool { true }
}

extension SweepError: Diagnostic {
  public var kind: DiagnosticKind { .usage }
  public var isFramed: Bool { false }
}

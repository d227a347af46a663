import ArbCore

extension FundingError: Diagnostic {
  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { false }
}

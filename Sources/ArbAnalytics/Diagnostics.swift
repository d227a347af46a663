import ArbCore

extension AlignmentError: Diagnostic {
  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { false }
}

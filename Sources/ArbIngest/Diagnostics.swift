import ArbCore

extension FileError: Diagnostic {
  public var kind: DiagnosticKind {
    if case .missing = self { return .missingInput }
    return .io
  }
  public var isFramed: Bool { true }
}

extension CacheError: Diagnostic {
  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { true }
}

extension SpecError: Diagnostic {
  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { true }
}

extension LegSpecError: Diagnostic {
  public var kind: DiagnosticKind { .usage }
  public var isFramed: Bool { false }
}

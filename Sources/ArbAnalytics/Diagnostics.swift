import ArbCore

extension AlignmentError: Diagnostic {
  /// Bad data, except a time problem that a setting causes (a grid too fine).
  public var kind: DiagnosticKind {
    if case .time(let error) = self { return error.kind }
    return .data
  }
  public var isFramed: Bool { false }
}

extension SpillError: Diagnostic {
  /// A temporary file that cannot be written (a full disk) is the machine's, not the data's.
  public var kind: DiagnosticKind { .io }
  public var isFramed: Bool { false }
}

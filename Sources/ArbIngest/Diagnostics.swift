import ArbCore

extension FileError: Diagnostic {
  /// A missing input or one that is not a file (66); an output onto an input of the
  /// same run (64); a file that cannot be read or written (74).
  public var kind: DiagnosticKind {
    switch self {
    case .missing, .notAFile: .missingInput
    case .overwritesInput, .sameOutput, .unsupportedFormat: .usage
    case .unreadable, .unwritable: .io
    }
  }
  public var isFramed: Bool { true }
}

extension StoreError: Diagnostic {
  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { true }
}

extension ParquetError: Diagnostic {
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

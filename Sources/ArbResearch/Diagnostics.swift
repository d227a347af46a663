import ArbCore

extension ScenarioError: Diagnostic {
  public var kind: DiagnosticKind { .usage }
  public var isFramed: Bool { true }
}

extension SweepGridError: Diagnostic {
  public var kind: DiagnosticKind { .usage }
  public var isFramed: Bool { false }
}

extension SweepError: Diagnostic {
  public var kind: DiagnosticKind { .usage }
  public var isFramed: Bool { false }
}

extension SweepResultsError: Diagnostic {
  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { true }
}

extension ScenarioSettingError: Diagnostic {
  public var kind: DiagnosticKind { .usage }
  public var isFramed: Bool { false }
}

extension ScenarioLegError: Diagnostic {
  public var kind: DiagnosticKind { .usage }
  public var isFramed: Bool { false }
}

extension BoardAlertError: Diagnostic {
  public var kind: DiagnosticKind { .usage }
  public var isFramed: Bool { false }
}

extension PartialError: Diagnostic {
  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { true }
}

extension Task where Failure == any Error {
    /// The task's value, and the task cancelled if the task awaiting it is: a test's time
    /// limit (`.timeLimit`) then ends a test whose work never answers, with an issue that says
    /// so, instead of holding the whole run (`Task.value` alone ignores cancellation).
    public var valueUnlessCancelled: Success {
        get async throws {
            try await withTaskCancellationHandler { try await value } onCancel: { cancel() }
        }
    }
}

import Foundation

/// Standard input, read on a thread of its own: a command is async, and a prompt that waits
/// for a person (a token, a passphrase, yes or no) must not hold one of the cooperative pool's
/// threads meanwhile.
enum StandardInput {
    /// The next line without its newline; nil at the end of input.
    static func line() async -> String? {
        await onOwnThread { readLine(strippingNewline: true) }
    }

    /// The value of `body`, which blocks (reading a terminal), run on a thread of its own.
    static func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}

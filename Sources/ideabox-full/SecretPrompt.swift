import AccountEncryption
import Foundation
import IdeaModel

/// Reads a passphrase or a recovery key: on a terminal, after a prompt on standard error and
/// without echo; otherwise one line of standard input (for scripts and tests), no prompt.
enum SecretPrompt {
    /// One secret; throws `noInput` when standard input ends first. The prompt waits for the
    /// person on a thread of its own (`StandardInput`), not on one of the cooperative pool's.
    static func read(_ prompt: EncryptionText.Prompt, _ language: Language) async throws(EncryptionCommandError) -> String {
        guard let line = await StandardInput.onOwnThread({ line(after: prompt, language) }) else { throw .noInput }
        return line
    }

    /// One line of standard input: on a terminal after `prompt` and without echo. Blocks.
    private static func line(after prompt: EncryptionText.Prompt, _ language: Language) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return readLine(strippingNewline: true) }
        FileHandle.standardError.write(Data(EncryptionText.prompt(prompt, language).utf8))
        var saved = termios()
        let hasTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if hasTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        defer {
            if hasTerminal { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true)
    }

    /// A new passphrase, asked twice; throws `weakPassphrase` as soon as the first does not
    /// keep `PassphraseRule` (before it is asked again), `passphrasesDiffer` when the two differ.
    static func newPassphrase(_ language: Language) async throws(EncryptionCommandError) -> String {
        let first = try await read(.newPassphrase, language)
        if !first.allSatisfy(\.isWhitespace), let weakness = PassphraseRule.weakness(of: first) {
            throw .weakPassphrase(weakness)
        }
        let second = try await read(.repeatPassphrase, language)
        guard first == second else { throw .passphrasesDiffer }
        return first
    }
}

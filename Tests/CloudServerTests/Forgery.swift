/// Forged secrets for the tests that prove a changed ticket, token or signature authorises
/// nothing. Each forgery differs from the original by construction: the replacement is chosen
/// from the character being replaced, never from its neighbours.
enum Forgery {
    /// The characters of base64url, in order; a character is replaced by the next one.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// `text` with its character at `offset` replaced by another of base64url's characters
    /// (any character outside the alphabet becomes `A`).
    static func replacing(characterAt offset: Int, of text: String) -> String {
        var characters = Array(text)
        characters[offset] = substitute(for: characters[offset])
        return String(characters)
    }

    /// The character a forgery puts where `character` was: never `character` itself.
    static func substitute(for character: Character) -> Character {
        guard let index = alphabet.firstIndex(of: character) else { return "A" }
        return alphabet[(index + 1) % alphabet.count]
    }
}

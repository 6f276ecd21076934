/// One result of ncurses `wget_wch`: a character, or a `KEY_*` code for a key ncurses decoded.
public enum RawInput: Hashable, Sendable {
    /// A character (`wget_wch` returned `OK`).
    case character(Unicode.Scalar)
    /// A key code such as `KEY_UP` (`wget_wch` returned `KEY_CODE_YES`).
    case keyCode(Int32)
}

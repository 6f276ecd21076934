/// One result of reading the terminal: a character or a `KEY_*` code from ncurses
/// `wget_wch`, or the end of input.
public enum RawInput: Hashable, Sendable {
    /// A character (`wget_wch` returned `OK`).
    case character(Unicode.Scalar)
    /// A key code such as `KEY_UP` (`wget_wch` returned `KEY_CODE_YES`).
    case keyCode(Int32)
    /// Nothing more will come: the terminal hung up or standard input ended.
    case endOfInput
}

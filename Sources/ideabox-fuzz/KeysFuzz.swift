import IdeaBoxTUI

/// Terminal input through one `KeyDecoder`, in batches as `wget_wch` reads them. The bytes
/// are UTF-8 text, except for bytes UTF-8 never holds, which stand for what is not a
/// character: 0xFF and the next two bytes a key code (`KEY_CODE_YES`), 0xFE the end of
/// input, 0xFD the end of a batch (nothing more waiting).
enum KeysFuzz {
    /// Decodes `bytes` as one stream of batches; no input may crash the decoder.
    static func run(_ bytes: [UInt8]) {
        var decoder = KeyDecoder()
        var batch: [RawInput] = []
        var text: [UInt8] = []
        func flushText() {
            batch += String(decoding: text, as: UTF8.self).unicodeScalars.map(RawInput.character)
            text.removeAll()
        }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0xFF:
                flushText()
                let high = index < bytes.count ? Int32(bytes[index]) : 0
                let low = index + 1 < bytes.count ? Int32(bytes[index + 1]) : 0
                index += 2
                batch.append(.keyCode(high << 8 | low))
            case 0xFE:
                flushText()
                batch.append(.endOfInput)
            case 0xFD:
                flushText()
                _ = decoder.decode(batch)
                batch.removeAll()
            default:
                text.append(byte)
            }
        }
        flushText()
        _ = decoder.decode(batch)
    }
}

import CloudWebServices
import HTTPTypes
import Hummingbird

/// `X-IdeaBox-Device` (ours, beyond CloudKit): the id a client chooses for itself, once per
/// client, and sends with its requests. A save that names it does not wake the long polls
/// of the webcourier URL that the same device asked for naming it (`AssetTicket.device`):
/// a device is not told of its own upload, as CloudKit leaves out "the device where the change
/// originates". A client that sends none (CloudKit's own clients) is woken by every save.
enum DeviceHeader {
    static let name = HTTPField.Name("X-IdeaBox-Device")!
    /// The longest id taken.
    static let maximumLength = 64

    /// The device `request` names, nil if none; `BAD_REQUEST` if it is not 1 to 64 letters,
    /// digits and dashes.
    static func device(of request: Request) throws -> String? {
        guard let value = request.headers[name] else { return nil }
        guard (1...maximumLength).contains(value.utf8.count), value.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || isLetterOrDigit($0) }) else {
            throw WebServicesError.badRequest("\(name) is 1 to \(maximumLength) ASCII letters, digits and dashes.")
        }
        return value
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}

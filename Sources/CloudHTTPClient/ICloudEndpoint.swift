import Foundation

/// Where the person's iCloud is reached: Apple's CloudKit Web Services, or, for tests and
/// proxies, the endpoint `IDEABOX_ICLOUD_URL` names, which must follow the same rules.
public enum ICloudEndpoint {
    /// Apple's CloudKit Web Services.
    public static let apple = URL(string: "https://api.apple-cloudkit.com")!
    /// The variable that points the iCloud mode at another CloudKit Web Services endpoint.
    public static let urlVariable = "IDEABOX_ICLOUD_URL"
    /// The variable that may hold the container's API token.
    public static let apiTokenVariable = "IDEABOX_ICLOUD_API_TOKEN"
    /// The port the sign-in callback listens on by default: the container's owner sets
    /// `http://127.0.0.1:8424/` as the API token's sign-in callback in CloudKit Dashboard.
    public static let callbackPort = 8424
    /// The environments a container has.
    public static let environments = ["production", "development"]

    /// The endpoint `environment` names, else Apple's; nil for a value that is no http(s) URL.
    public static func url(in environment: [String: String]) -> URL? {
        guard let text = environment[urlVariable], !text.isEmpty else { return apple }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            return nil
        }
        return url
    }
}

import Hummingbird

extension Request {
    /// `scheme://host:port` as the request named the server (its `Host`). Behind a proxy
    /// that ends TLS, `X-Forwarded-Proto: https` makes the URLs it hands out https ones; the
    /// header only changes the URLs given back to the client that sent it.
    func baseURL(scheme: String) -> String {
        let authority = head.authority ?? ""
        let safe = authority.utf8.count <= 255 && authority.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }
        let forwarded = headers.first { $0.name.canonicalName == "x-forwarded-proto" }?.value.lowercased() == "https"
        return (forwarded ? "https" : scheme) + "://" + (safe && !authority.isEmpty ? authority : "127.0.0.1")
    }
}

import NIOSSL

/// The certificate and key `serve --tls-cert FILE --tls-key FILE` answers HTTPS with: TLS 1.2
/// and 1.3 (or 1.3 alone), and with 1.2 only the suites that are forward secret (ECDHE) and
/// authenticated encryption (AES-GCM, ChaCha20-Poly1305); TLS 1.3's suites are all both.
public struct ServerTLS: Sendable {
    /// The oldest version of TLS answered (`serve --tls-min`).
    public enum MinimumVersion: String, Sendable, CaseIterable {
        case tls12 = "1.2"
        case tls13 = "1.3"
    }

    /// The TLS 1.2 suites offered, strongest first: ECDHE, then an AEAD cipher.
    static let tls12Suites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
    ]

    /// Why the files could not be used, naming the file.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    let configuration: TLSConfiguration

    /// Reads the certificate chain (PEM, the server's first) and its private key (PEM), to
    /// answer TLS `minimumVersion` and later; throws a `Failure` naming the file that is
    /// missing, unreadable or not what it should be.
    public init(certificateFile: String, keyFile: String, minimumVersion: MinimumVersion = .tls12) throws(Failure) {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
        } catch {
            throw Failure(description: "The TLS certificate \(certificateFile) cannot be read as PEM certificates: \(error).")
        }
        guard !chain.isEmpty else {
            throw Failure(description: "The TLS certificate \(certificateFile) holds no certificate (-----BEGIN CERTIFICATE-----).")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        } catch {
            throw Failure(description: "The TLS key \(keyFile) cannot be read as a PEM private key: \(error).")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = minimumVersion == .tls13 ? .tlsv13 : .tlsv12
        configuration.cipherSuiteValues = Self.tls12Suites
        self.configuration = configuration
        do {
            // A key that does not match the certificate fails here, at start, not at the first handshake.
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw Failure(description: "The TLS key \(keyFile) does not go with the certificate \(certificateFile): \(error).")
        }
    }
}

import NIOSSL

/// The certificate and key `serve --tls-cert FILE --tls-key FILE` answers HTTPS with.
public struct ServerTLS: Sendable {
    /// Why the files could not be used, naming the file.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    let configuration: TLSConfiguration

    /// Reads the certificate chain (PEM, the server's first) and its private key (PEM);
    /// throws a `Failure` naming the file that is missing, unreadable or not what it should be.
    public init(certificateFile: String, keyFile: String) throws(Failure) {
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
        configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        do {
            // A key that does not match the certificate fails here, at start, not at the first handshake.
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw Failure(description: "The TLS key \(keyFile) does not go with the certificate \(certificateFile): \(error).")
        }
    }
}

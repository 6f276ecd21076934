import ChildProcess
import Foundation
import ProcessTestSupport
import Testing

/// `ideabox serve` over HTTPS with a certificate of a private authority, made here with
/// `openssl`: a device told to trust that authority syncs; one that was not told refuses
/// the server, in one sentence naming the host and why.
@Suite("Sync through ideabox serve over TLS", .takesTurns)
struct ServedTLSTests {
    /// A certificate authority and a certificate it signed for 127.0.0.1, in a new folder.
    final class Certificates {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ideabox-tls-\(UUID().uuidString)")
        var authority: String { folder.appendingPathComponent("ca.pem").path }
        var certificate: String { folder.appendingPathComponent("server.pem").path }
        var key: String { folder.appendingPathComponent("server.key").path }

        init() async throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\n".utf8).write(to: folder.appendingPathComponent("san.txt"))
            for arguments in [
                ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=IdeaBox Test CA"],
                ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"],
                ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
                 "-days", "2", "-extfile", "san.txt"],
            ] {
                let status = try await ChildProcess.run(
                    "/usr/bin/openssl", arguments, environment: ["PATH": "/usr/bin:/bin"], directory: folder.path,
                    output: folder.appendingPathComponent("openssl.out").path, error: folder.appendingPathComponent("openssl.err").path)
                guard status == 0 else {
                    let error = (try? String(contentsOf: folder.appendingPathComponent("openssl.err"), encoding: .utf8)) ?? ""
                    throw EndToEndError(description: "openssl \(arguments.joined(separator: " ")) failed: \(error)")
                }
            }
        }

        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    @Test func aDeviceTrustingThePrivateAuthoritySyncsAndOneThatDoesNotRefusesTheServer() async throws {
        let certificates = try await Certificates()
        let server = try ServeProcess()
        defer { server.close() }
        let token = try await server.addAccount("alice")
        try await server.start(["--tls-cert", certificates.certificate, "--tls-key", certificates.key])
        let url = try server.url.replacingOccurrences(of: "http://", with: "https://")
        #expect(server.log.contains("listening on https://127.0.0.1:"))

        let trusting = try DeviceProcess()
        try await trusting.run(["account", "sign-in", "alice", "--server", url, "--token", token, "--ca-cert", certificates.authority])
        try await trusting.run(["add", "經由 TLS 同步"])
        #expect(try await trusting.run(["sync"]).contains("Synced: 1 sent"))
        let other = try DeviceProcess()
        try await other.run(["account", "sign-in", "alice", "--server", url, "--token", token, "--ca-cert", certificates.authority])
        try await other.run(["sync"])
        #expect(try await other.run(["list"]).contains("經由 TLS 同步"))

        let doubting = try DeviceProcess()
        let notKept = try await doubting.execute(["account", "sign-in", "alice", "--server", url, "--token", token])
        #expect(notKept.status != 0, "\(notKept)")
        #expect(notKept.error.contains("Not signed in as alice: not talking to 127.0.0.1: its certificate is not signed by an authority"), "\(notKept.error)")
        #expect(!(try await doubting.run(["account", "status"]).contains(url)), "the refused sign-in was kept")
        try await doubting.run(["account", "sign-in", "alice", "--server", url, "--token", token, "--no-check"])
        let refused = try await doubting.execute(["sync"])
        #expect(refused.status != 0)
        #expect(refused.error.contains("not talking to 127.0.0.1: its certificate is not signed by an authority this device trusts"), "\(refused.error)")
        #expect(try await doubting.run(["list"]).isEmpty)
        #expect(!server.log.contains(token), "a token reached the request log")
    }

    @Test("TLS 1.2 with forward-secret AEAD suites and TLS 1.3 are answered; TLS 1.0, 1.1 and suites without forward secrecy are refused; --tls-min 1.3 refuses 1.2")
    func onlyTLSWorthTrustingIsAnswered() async throws {
        let certificates = try await Certificates()
        let server = try ServeProcess()
        defer { server.close() }
        try await server.start(["--tls-cert", certificates.certificate, "--tls-key", certificates.key])
        let port = try #require(server.port)
        // The client allows everything it can (security level 0), so a refusal is the server's.
        let any = ["-cipher", "ALL:@SECLEVEL=0"]
        #expect(try await Self.handshake(port, ["-tls1_3"], in: certificates))
        #expect(try await Self.handshake(port, ["-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"], in: certificates))
        #expect(try await Self.handshake(port, ["-tls1_2", "-cipher", "ECDHE-RSA-CHACHA20-POLY1305"], in: certificates))
        #expect(try await !Self.handshake(port, ["-tls1_1"] + any, in: certificates), "TLS 1.1 answered")
        #expect(try await !Self.handshake(port, ["-tls1"] + any, in: certificates), "TLS 1.0 answered")
        for suite in ["AES128-SHA", "AES256-SHA", "AES128-GCM-SHA256", "ECDHE-RSA-AES128-SHA"] {
            #expect(try await !Self.handshake(port, ["-tls1_2", "-cipher", suite + ":@SECLEVEL=0"], in: certificates), "\(suite) answered")
        }

        let strict = try ServeProcess()
        defer { strict.close() }
        try await strict.start(["--tls-cert", certificates.certificate, "--tls-key", certificates.key, "--tls-min", "1.3"])
        let strictPort = try #require(strict.port)
        #expect(try await Self.handshake(strictPort, ["-tls1_3"], in: certificates))
        #expect(try await !Self.handshake(strictPort, ["-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"], in: certificates), "TLS 1.2 answered")
    }

    /// Whether `openssl s_client` with `arguments` completes a handshake with 127.0.0.1:`port`.
    private static func handshake(_ port: Int, _ arguments: [String], in certificates: Certificates) async throws -> Bool {
        let status = try await ChildProcess.run(
            "/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(port)", "-brief", "-CAfile", certificates.authority] + arguments,
            environment: ["PATH": "/usr/bin:/bin"], directory: certificates.folder.path, input: "/dev/null",
            output: certificates.folder.appendingPathComponent("s_client.out").path,
            error: certificates.folder.appendingPathComponent("s_client.err").path)
        return status == 0
    }
}

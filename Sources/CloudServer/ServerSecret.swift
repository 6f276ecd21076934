import Foundation
import ServerStore
import Synchronization

/// The store's `serverSecret`, read from the store on first use.
final class ServerSecret: Sendable {
    private let store: any AccountStore
    private let cached = Mutex<Data?>(nil)

    init(store: any AccountStore) {
        self.store = store
    }

    /// The secret's bytes.
    func bytes() async throws -> Data {
        if let secret = cached.withLock({ $0 }) { return secret }
        let secret = try await store.serverSecret()
        cached.withLock { $0 = secret }
        return secret
    }
}

import CloudKitModel
import CloudWebServices
import Foundation
import IdeaBoxFoundation
import ServerStore

/// `subscriptions/modify`, `/list`, `/lookup` and `tokens/create`: how a device asks to be
/// told when its zones change, and where it waits to be told (see `ZoneChangeHub`).
extension CloudOperations {
    /// The most subscriptions one account may hold.
    static let maximumSubscriptions = 100

    /// `operations[{operationType: create|update|delete, subscription}]`, zone subscriptions
    /// only (`subscriptionType: "zone"`, `zoneID`); a missing `subscriptionID` gets a new UUID.
    func modifySubscriptions(_ body: Object) async throws -> Object {
        var changes: [(delete: Bool, subscription: ZoneSubscription)] = []
        var named = Set<String>()
        for (index, json) in try Self.operations(body).enumerated() {
            let path = "operations[\(index)]"
            guard let operation = json.object, let subscription = operation["subscription"]?.object else {
                throw WebServicesError.badRequest("\(path) must be an object with an operationType and a subscription.")
            }
            let type = try WebServicesFormat.string(operation["operationType"], at: "\(path).operationType")
            guard ["create", "update", "delete"].contains(type) else {
                throw WebServicesError.badRequest("\(path).operationType must be create, update or delete.")
            }
            let id = try subscription["subscriptionID"].map { try Self.subscriptionID($0, at: "\(path).subscription.subscriptionID") }
            if type == "delete" {
                guard let id else { throw WebServicesError.badRequest("\(path): delete needs the subscriptionID.") }
                changes.append((true, ZoneSubscription(id: id, zone: RecordZoneID.defaultZone)))
            } else {
                let kind = try subscription["subscriptionType"].map { try WebServicesFormat.string($0, at: "\(path).subscription.subscriptionType") }
                guard kind == nil || kind == "zone" else {
                    throw WebServicesError.badRequest("\(path): only zone subscriptions (subscriptionType \"zone\") are served.")
                }
                let zone = try WebServicesFormat.zoneID(subscription["zoneID"], at: "\(path).subscription.zoneID")
                changes.append((false, ZoneSubscription(id: id ?? UUID().uuidString.lowercased(), zone: zone)))
            }
            guard named.insert(changes.last!.subscription.id).inserted else {
                throw WebServicesError.badRequest("\(path): subscription \(changes.last!.subscription.id) has another operation in this request.")
            }
        }
        let existing = Set(try await store.subscriptions(account: owner).map(\.id))
        let added = changes.filter { !$0.delete && !existing.contains($0.subscription.id) }.count
        let removed = changes.filter { $0.delete && existing.contains($0.subscription.id) }.count
        guard existing.count + added - removed <= Self.maximumSubscriptions else {
            throw WebServicesError.limitExceeded("An account holds at most \(Self.maximumSubscriptions) subscriptions.")
        }
        var answers: [JSONValue] = []
        for (delete, subscription) in changes {
            if delete {
                if try await store.deleteSubscription(id: subscription.id, account: owner) {
                    answers.append(["subscriptionID": .string(subscription.id), "deleted": true])
                } else {
                    answers.append(Self.missingSubscription(subscription.id))
                }
            } else {
                try await store.saveSubscription(subscription, account: owner)
                answers.append(object(subscription))
            }
        }
        return ["subscriptions": .array(answers)]
    }

    /// Every subscription of the account.
    func listSubscriptions() async throws -> Object {
        ["subscriptions": .array(try await store.subscriptions(account: owner).map(object))]
    }

    /// `subscriptions[{subscriptionID}]`: each subscription, or `NOT_FOUND` for that one.
    func lookupSubscriptions(_ body: Object) async throws -> Object {
        guard let requests = body["subscriptions"]?.array, requests.count <= Self.maximumOperations else {
            throw WebServicesError.badRequest("subscriptions must be an array of at most \(Self.maximumOperations) {subscriptionID}.")
        }
        let ids = try requests.enumerated().map { index, json in
            try Self.subscriptionID(json.object?["subscriptionID"], at: "subscriptions[\(index)].subscriptionID")
        }
        let byID = Dictionary(try await store.subscriptions(account: owner).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return ["subscriptions": .array(ids.map { id in byID[id].map(object) ?? Self.missingSubscription(id) })]
    }

    /// `{apnsEnvironment}`: `{apnsEnvironment, apnsToken, webcourierURL}`, where a GET of
    /// `webcourierURL` waits for the next change in a subscribed zone (one the requesting
    /// device, if it named itself, did not make).
    func createToken(_ body: Object) throws -> Object {
        let environment = try Self.apnsEnvironment(body)
        return [
            "apnsEnvironment": .string(environment),
            "apnsToken": .string(UUID().uuidString.lowercased()),
            "webcourierURL": .string(assetURLs.webcourier(owner: owner, container: container, device: device)),
        ]
    }

    /// `tokens/register`: `{apnsEnvironment, apnsToken}`, both required. This server pushes
    /// nothing through APNs (its notifications come through the webcourier long poll), so the
    /// token is checked and taken, and the answer is `{apnsEnvironment, apnsToken}` as sent.
    func registerToken(_ body: Object) throws -> Object {
        let environment = try Self.apnsEnvironment(body)
        guard let token = body["apnsToken"]?.string, !token.isEmpty, token.utf8.count <= 512 else {
            throw WebServicesError.badRequest("apnsToken is required: the token tokens/create gave out, as a string.")
        }
        return ["apnsEnvironment": .string(environment), "apnsToken": .string(token)]
    }

    /// `apnsEnvironment`, which Apple's reference requires: `production` or `development`.
    private static func apnsEnvironment(_ body: Object) throws -> String {
        guard let environment = body["apnsEnvironment"]?.string, WebServicesPath.environments.contains(environment) else {
            throw WebServicesError.badRequest("apnsEnvironment is required: production or development.")
        }
        return environment
    }

    /// `{subscriptionID, subscriptionType: "zone", zoneID}`.
    private func object(_ subscription: ZoneSubscription) -> JSONValue {
        ["subscriptionID": .string(subscription.id), "subscriptionType": "zone", "zoneID": zoneIDObject(subscription.zone)]
    }

    private static func missingSubscription(_ id: String) -> JSONValue {
        ["subscriptionID": .string(id), "serverErrorCode": "NOT_FOUND", "reason": .string("No subscription \(id).")]
    }

    private static func subscriptionID(_ json: JSONValue?, at path: String) throws -> String {
        try WebServicesFormat.recordName(json, at: path)
    }
}

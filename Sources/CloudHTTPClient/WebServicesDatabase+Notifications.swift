import CloudKitModel
import CloudWebServices
import Foundation
import NIOCore

/// Being told of changes instead of asking (CloudKit Web Services' zone subscriptions and
/// webcourier long poll): subscribe once to the zones a device syncs, then wait at the
/// webcourier URL, again and again; each answer names the zone to fetch.
extension WebServicesDatabase {
    /// The subscription id for `zone`: one per zone and account, so subscribing again
    /// (another device, another launch) saves the same subscription.
    public static func subscriptionID(for zone: RecordZoneID) -> String {
        "zone-" + zone.zoneName
    }

    /// Subscribes the account to the changes of `zones`.
    public func subscribe(to zones: [RecordZoneID]) throws {
        let operations: [JSONValue] = zones.map { zone in
            [
                "operationType": "create",
                "subscription": [
                    "subscriptionID": .string(Self.subscriptionID(for: zone)), "subscriptionType": "zone",
                    "zoneID": WebServicesFormat.object(zone),
                ],
            ]
        }
        let answers = try send(.subscriptionsModify, ["operations": .array(operations)])["subscriptions"]?.array
        guard let answers, answers.count == zones.count else { throw CloudError.networkFailure }
        for answer in answers {
            guard let object = answer.object else { throw CloudError.networkFailure }
            if let error = WebServicesError(object) { throw error.cloudError() }
        }
    }

    /// Where to long-poll for this account's notifications (`tokens/create`).
    public func webcourierURL() throws -> URL {
        let answer = try send(.tokensCreate, ["apnsEnvironment": .string(endpoint.environment)])
        guard let text = answer["webcourierURL"]?.string, let url = URL(string: text), ["http", "https"].contains(url.scheme) else {
            throw CloudError.networkFailure
        }
        return url
    }

    /// Waits at `url` until a subscribed zone changes (that zone) or about `seconds` pass
    /// (nil); `notAuthenticated` once the URL has expired (ask `webcourierURL()` again).
    public func waitForChange(at url: URL, seconds: Int) throws -> RecordZoneID? {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "timeout", value: String(min(max(seconds, 1), 60)))]
        guard let pollURL = components?.url else { throw CloudError.networkFailure }
        // The server answers at `seconds`; the margin covers a slow network.
        let (status, headers, body) = try transport.get(pollURL, wait: .seconds(Int64(seconds) + 15))
        let answer = try object(try Self.success(status: status, headers: headers, body: body))
        guard let zone = answer["zoneID"] else { return nil }
        do {
            return try WebServicesFormat.zoneID(zone)
        } catch {
            throw CloudError.networkFailure
        }
    }
}

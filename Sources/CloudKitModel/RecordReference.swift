import Foundation
import IdeaBoxFoundation

/// A reference from one record to another (CloudKit's `REFERENCE`): the target's name, its
/// zone (nil: the referencing record's own), and what the reference does.
///
/// Apple's Reference Dictionary is `{recordName, zoneID, action}`; a reference only reaches
/// records of the same account and database, so the zone is all of the target's place.
public struct RecordReference: Hashable, Sendable, Codable {
    /// What a reference does to its record.
    public enum Action: String, Sendable, Codable, CaseIterable {
        /// Nothing.
        case none = "NONE"
        /// The referencing record is deleted when its target is.
        case deleteSelf = "DELETE_SELF"
        /// The target must exist when the reference is saved (`VALIDATING_REFERENCE_ERROR`).
        case validate = "VALIDATE"
    }

    /// The target's record name.
    public var recordName: String
    /// The target's zone, or nil for the referencing record's own.
    public var zoneName: String?
    /// What the reference does.
    public var action: Action

    /// A reference to `recordName` in `zoneName` (nil: the referencing record's zone).
    public init(recordName: String, zoneName: String? = nil, action: Action = .none) {
        self.recordName = recordName
        self.zoneName = zoneName
        self.action = action
    }

    /// The target's id, for a reference held by a record of `zone`.
    public func target(from zone: RecordZoneID) -> RecordID {
        RecordID(recordName: recordName, zoneID: zoneName.map { RecordZoneID(zoneName: $0) } ?? zone)
    }
}

/// A place on Earth (CloudKit's `LOCATION`): a latitude and a longitude in degrees, and what
/// else a device measured with them, each kept as it was saved.
public struct Location: Hashable, Sendable, Codable {
    /// Degrees north, -90 to 90.
    public var latitude: Double
    /// Degrees east, -180 to 180.
    public var longitude: Double
    /// The radius of uncertainty of the latitude and longitude, in meters.
    public var horizontalAccuracy: Double?
    /// The accuracy of the altitude, in meters.
    public var verticalAccuracy: Double?
    /// Meters above sea level.
    public var altitude: Double?
    /// Meters per second.
    public var speed: Double?
    /// Degrees clockwise from north.
    public var course: Double?
    /// When it was measured.
    public var timestamp: Timestamp?

    /// A location; nil unless the latitude and longitude are on Earth and every value finite.
    public init?(
        latitude: Double, longitude: Double, horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil,
        altitude: Double? = nil, speed: Double? = nil, course: Double? = nil, timestamp: Timestamp? = nil
    ) {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude),
              [horizontalAccuracy, verticalAccuracy, altitude, speed, course].allSatisfy({ $0?.isFinite ?? true })
        else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
    }

    private enum CodingKeys: String, CodingKey {
        case latitude, longitude, horizontalAccuracy, verticalAccuracy, altitude, speed, course, timestamp
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let location = Location(
            latitude: try container.decode(Double.self, forKey: .latitude), longitude: try container.decode(Double.self, forKey: .longitude),
            horizontalAccuracy: try container.decodeIfPresent(Double.self, forKey: .horizontalAccuracy),
            verticalAccuracy: try container.decodeIfPresent(Double.self, forKey: .verticalAccuracy),
            altitude: try container.decodeIfPresent(Double.self, forKey: .altitude), speed: try container.decodeIfPresent(Double.self, forKey: .speed),
            course: try container.decodeIfPresent(Double.self, forKey: .course), timestamp: try container.decodeIfPresent(Timestamp.self, forKey: .timestamp))
        else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "a location is on Earth"))
        }
        self = location
    }

    /// The mean radius of the Earth, in meters (what a `NEAR` filter's distance is measured with).
    public static let earthRadius = 6_371_008.8

    /// The distance to `other` along the Earth's surface, in meters (haversine).
    public func distance(to other: Location) -> Double {
        let (phi1, phi2) = (latitude * .pi / 180, other.latitude * .pi / 180)
        let deltaPhi = (other.latitude - latitude) * .pi / 180
        let deltaLambda = (other.longitude - longitude) * .pi / 180
        let a = sin(deltaPhi / 2) * sin(deltaPhi / 2) + cos(phi1) * cos(phi2) * sin(deltaLambda / 2) * sin(deltaLambda / 2)
        return 2 * Self.earthRadius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}

extension FieldValue {
    /// The references this value holds, inside lists too.
    public var recordReferences: [RecordReference] {
        switch self {
        case .reference(let reference): [reference]
        case .list(let values): values.flatMap(\.recordReferences)
        default: []
        }
    }
}

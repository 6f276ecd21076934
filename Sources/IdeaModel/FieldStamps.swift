import IdeaBoxFoundation
/// The fields of an idea that a person edits, each of which merges on its own.
public enum IdeaField: String, Sendable, Hashable, CaseIterable, Codable {
    case title
    case description
    case isCompleted

    /// The field's name as people read it: in the form, the history and the conflict lines.
    public func name(in language: Language) -> String {
        switch (self, language) {
        case (.title, .english): "title"
        case (.description, .english): "description"
        case (.isCompleted, .english): "done"
        case (.title, .traditionalChinese): "標題"
        case (.description, .traditionalChinese): "描述"
        case (.isCompleted, .traditionalChinese): "完成狀態"
        }
    }
}

/// Where each editable field of an idea was last written in the one sync order: a merge
/// takes each field from whichever side stamped it later, so edits of different fields
/// made apart both survive.
public struct FieldStamps: Sendable, Hashable {
    /// When and by whom the title was last written.
    public var title: SyncOrder
    /// When and by whom the description was last written.
    public var description: SyncOrder
    /// When and by whom the done flag was last set.
    public var isCompleted: SyncOrder

    /// Stamps for each field.
    public init(title: SyncOrder, description: SyncOrder, isCompleted: SyncOrder) {
        self.title = title
        self.description = description
        self.isCompleted = isCompleted
    }

    /// Every field stamped at `order`.
    public init(all order: SyncOrder) {
        self.init(title: order, description: order, isCompleted: order)
    }

    /// What an idea without stamps of its own (an older database or record, an import)
    /// reads as: every field stamped at its `updatedAt` by its `deviceId`, except that an
    /// untouched sample is stamped as one (older than anything a person did).
    public init(legacy idea: Idea) {
        if SyncOrder.isSampleWriter(idea.deviceId) {
            self.init(all: .sample(writer: idea.deviceId))
        } else {
            self.init(all: SyncOrder(idea))
        }
    }

    /// These stamps if they can be `idea`'s, else `FieldStamps(legacy: idea)`. Written by
    /// this IdeaBox, an idea's own place is its latest stamp, its time no earlier than
    /// `createdAt` (an untouched sample shows the time it was seeded); stamps that don't
    /// fit were left behind by a writer that knows nothing of them (an older IdeaBox on the
    /// same database, another client on the remote), which wrote the idea after them.
    public func checked(for idea: Idea) -> FieldStamps {
        let latest = self.latest
        if latest.isSample, SyncOrder.isSampleWriter(idea.deviceId) { return self }
        if latest.deviceId == idea.deviceId, max(latest.timestamp, idea.createdAt) == idea.updatedAt { return self }
        return FieldStamps(legacy: idea)
    }

    /// The stamp of `field`.
    public subscript(field: IdeaField) -> SyncOrder {
        get {
            switch field {
            case .title: title
            case .description: description
            case .isCompleted: isCompleted
            }
        }
        set {
            switch field {
            case .title: title = newValue
            case .description: description = newValue
            case .isCompleted: isCompleted = newValue
            }
        }
    }

    /// The latest of the three: the idea's own place in the sync order.
    public var latest: SyncOrder { max(title, description, isCompleted) }

    /// Whether no person has written any field: every stamp is a sample's.
    public var isUntouchedSample: Bool { title.isSample && description.isSample && isCompleted.isSample }

    /// These stamps with `fields` set to `order`.
    public func setting(_ fields: some Sequence<IdeaField>, to order: SyncOrder) -> FieldStamps {
        var stamps = self
        for field in fields { stamps[field] = order }
        return stamps
    }
}

extension SyncOrder {
    /// The place of a field no person has written, seeded with the samples by `writer`
    /// (`sample-en`, `sample-zh-Hant`): time zero, before anything a person does.
    public static func sample(writer: String) -> SyncOrder {
        SyncOrder(timestamp: Timestamp(milliseconds: 0), deviceId: writer)
    }

    /// Whether this is a sample's stamp.
    public var isSample: Bool { timestamp.milliseconds <= 0 && Self.isSampleWriter(deviceId) }

    /// Whether `deviceId` is the writer id of a set of samples.
    public static func isSampleWriter(_ deviceId: String) -> Bool { deviceId.hasPrefix("sample-") }
}

extension Idea {
    /// The value of `field`, as text for logs and history.
    public func value(of field: IdeaField) -> String {
        switch field {
        case .title: title
        case .description: description
        case .isCompleted: isCompleted ? "true" : "false"
        }
    }

    /// The fields whose values differ between this idea and `other`.
    public func fieldsDiffering(from other: Idea) -> [IdeaField] {
        IdeaField.allCases.filter { value(of: $0) != other.value(of: $0) }
    }

    /// This idea with `field` taken from `other`.
    public func taking(_ field: IdeaField, from other: Idea) -> Idea {
        var idea = self
        switch field {
        case .title: idea.title = other.title
        case .description: idea.description = other.description
        case .isCompleted: idea.isCompleted = other.isCompleted
        }
        return idea
    }
}

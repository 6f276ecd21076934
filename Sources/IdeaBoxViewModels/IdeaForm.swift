import IdeaModel

/// The edit form for a new or an existing idea: a one-line title, a multi-line
/// description and a completed toggle, checked live against the idea's rules.
public struct IdeaForm: Sendable, Equatable {
    /// What the form is for.
    public enum Mode: Sendable, Equatable {
        /// A new idea.
        case new
        /// Changes to an existing idea.
        case edit(Idea)
    }

    /// The fields, in Tab order.
    public enum Field: Int, CaseIterable, Sendable {
        case title, description, completed
    }

    /// What a key did to the form.
    public enum Outcome: Sendable, Equatable {
        /// Still editing.
        case editing
        /// Save these values (already checked against the rules).
        case save(title: String, description: String, isCompleted: Bool)
        /// Save these values as a new idea: the idea being edited was deleted elsewhere.
        case saveAsNew(title: String, description: String, isCompleted: Bool)
        /// Close without saving.
        case cancel
    }

    /// What the form is for.
    public let mode: Mode
    /// The title field.
    public private(set) var title: TextBuffer
    /// The description field.
    public private(set) var description: TextBuffer
    /// The completed toggle.
    public private(set) var isCompleted: Bool
    /// The field that takes typed keys.
    public private(set) var focus: Field = .title
    /// Whether the form is asking "discard changes? y/n".
    public private(set) var isConfirmingDiscard = false
    /// Whether the form is asking "deleted on another device: save as a new idea? y/n".
    public private(set) var isOfferingToSaveAsNew = false
    /// The device that deleted the idea being edited, once the form knows it was deleted.
    public private(set) var deletedBy: String?
    /// The idea as another device last changed it while the form was open, if it did.
    public private(set) var theirs: Idea?
    /// Whether the form is asking, for fields changed here and on another device, which to
    /// keep: `m` mine, `t` theirs.
    public private(set) var isAskingMineOrTheirs = false
    /// The person's answer to that question: true keeps the other device's values.
    public private(set) var keepsTheirs = false
    /// Whether a save was refused, which makes even an empty title's error show.
    public private(set) var triedToSave = false
    /// The width the description wraps at on screen, for moving up and down by line.
    public var descriptionWrapWidth = 60
    /// The key just pressed that starts a two-key sequence (`Ctrl-X` of `Ctrl-X Ctrl-E`), if
    /// one was: the form's keys read the next key after it.
    var pendingPrefix: Key?

    /// A form for `mode`, filled with the idea's values when editing.
    public init(mode: Mode) {
        self.mode = mode
        switch mode {
        case .new:
            title = TextBuffer()
            description = TextBuffer(isMultiline: true)
            isCompleted = false
        case .edit(let idea):
            title = TextBuffer(idea.title)
            description = TextBuffer(idea.description, isMultiline: true)
            isCompleted = idea.isCompleted
        }
    }

    /// Whether the form is asking a question (discard, save as new, mine or theirs), which
    /// takes the next key.
    public var isAsking: Bool { isConfirmingDiscard || isOfferingToSaveAsNew || isAskingMineOrTheirs }

    /// Puts the text the person's own editor returned in the fields, each cursor at its end.
    public mutating func replaceText(title: String, description: String) {
        self.title = TextBuffer(title)
        self.description = TextBuffer(description, isMultiline: true)
    }

    /// Whether anything differs from what the form started with.
    public var isDirty: Bool {
        switch mode {
        case .new:
            !title.characters.isEmpty || !description.characters.isEmpty || isCompleted
        case .edit(let idea):
            title.text != idea.title || description.text != idea.description || isCompleted != idea.isCompleted
        }
    }

    /// The first rule the current values break, if any.
    public var validationError: IdeaValidationError? {
        do throws(IdeaValidationError) {
            _ = try IdeaRules.normalizedTitle(title.text)
            _ = try IdeaRules.normalizedDescription(description.text)
            return nil
        } catch {
            return error
        }
    }

    /// The error to show in place: every broken rule at once, except an empty title,
    /// which shows only after a save was tried (a new form starts empty).
    public var visibleError: IdeaValidationError? {
        guard let error = validationError else { return nil }
        return error == .emptyTitle && !triedToSave ? nil : error
    }

    /// The form's values as an idea (the edited idea's, with what is typed).
    public var values: Idea? {
        guard case .edit(let original) = mode else { return nil }
        var idea = original
        idea.title = title.text
        idea.description = description.text
        idea.isCompleted = isCompleted
        return idea
    }

    /// The fields the person changed in the form.
    public var changedHere: [IdeaField] {
        guard case .edit(let original) = mode, let values else { return [] }
        return values.fieldsDiffering(from: original)
    }

    /// The fields another device changed since the form opened.
    public var changedElsewhere: [IdeaField] {
        guard case .edit(let original) = mode, let theirs else { return [] }
        return theirs.fieldsDiffering(from: original)
    }

    /// The fields changed here and on another device, to different values: the ones the
    /// form asks about.
    public var changedOnBothSides: [IdeaField] {
        guard let theirs, let values else { return [] }
        let elsewhere = changedElsewhere
        return changedHere.filter { elsewhere.contains($0) && values.value(of: $0) != theirs.value(of: $0) }
    }

    /// The fields a save writes: those the person changed, less those where they chose to
    /// keep the other device's value.
    public var fieldsToSave: [IdeaField] {
        guard case .edit = mode else { return IdeaField.allCases }
        let both = keepsTheirs ? changedOnBothSides : []
        return changedHere.filter { !both.contains($0) }
    }

    /// The idea being edited changed on another device: the form keeps what is typed and
    /// notes which fields changed there.
    public mutating func ideaChangedElsewhere(_ current: Idea) {
        guard case .edit(let original) = mode, current != (theirs ?? original) else { return }
        theirs = current
        keepsTheirs = false
    }

    /// The idea being edited no longer exists (`device` deleted it, if known): the form
    /// keeps every field and asks whether to save them as a new idea.
    public mutating func ideaWasDeletedElsewhere(by device: String? = nil) {
        deletedBy = device
        isOfferingToSaveAsNew = true
        isConfirmingDiscard = false
    }

    /// Applies a key, read with the default form keys, and says whether the form should
    /// save, close or stay.
    public mutating func handle(_ key: Key) -> Outcome {
        handle(key, as: FormKeys.defaults.action(for: key, after: nil))
    }

    /// Applies a key that the form's keys read as `action` (nil: none, so it types or edits)
    /// and says whether the form should save, close or stay. `openInEditor` is the app's to
    /// carry out, and does nothing here.
    public mutating func handle(_ key: Key, as action: FormAction?) -> Outcome {
        if isAskingMineOrTheirs {
            switch key {
            case .char("m"), .char("M"):
                isAskingMineOrTheirs = false
                keepsTheirs = false
                return .save(title: title.text, description: description.text, isCompleted: isCompleted)
            case .char("t"), .char("T"):
                isAskingMineOrTheirs = false
                keepsTheirs = true
                return .save(title: title.text, description: description.text, isCompleted: isCompleted)
            default:
                if action == .cancel { isAskingMineOrTheirs = false }
            }
            return .editing
        }
        if isOfferingToSaveAsNew {
            isOfferingToSaveAsNew = false
            guard key == .char("y") || key == .char("Y") else { return .editing }
            guard validationError == nil else { return .editing }
            return .saveAsNew(title: title.text, description: description.text, isCompleted: isCompleted)
        }
        if isConfirmingDiscard {
            // y, or a cancel key again (Ctrl-C twice: the person means it); Esc, as in every
            // question, takes the question back.
            if key == .char("y") || key == .char("Y") || (action == .cancel && key != .escape) { return .cancel }
            isConfirmingDiscard = false
            return .editing
        }
        switch action {
        case .save:
            return save()
        case .cancel:
            guard isDirty else { return .cancel }
            isConfirmingDiscard = true
            return .editing
        case .nextField:
            focus = Field(rawValue: (focus.rawValue + 1) % Field.allCases.count)!
        case .previousField:
            focus = Field(rawValue: (focus.rawValue + Field.allCases.count - 1) % Field.allCases.count)!
        case .openInEditor:
            break
        case nil:
            switch focus {
            case .title: editTitle(key)
            case .description: editDescription(key)
            case .completed: editCompleted(key)
            }
        }
        return .editing
    }

    private mutating func save() -> Outcome {
        triedToSave = true
        guard validationError == nil else { return .editing }
        if !changedOnBothSides.isEmpty {
            isAskingMineOrTheirs = true
            return .editing
        }
        return .save(title: title.text, description: description.text, isCompleted: isCompleted)
    }

    private mutating func editTitle(_ key: Key) {
        switch key {
        case .enter, .down:
            focus = .description
        case .up:
            break
        default:
            title.apply(key)
        }
    }

    private mutating func editDescription(_ key: Key) {
        switch key {
        case .enter:
            description.insert("\n")
        case .up:
            if description.isOnFirstLine(wrappingAt: descriptionWrapWidth) {
                focus = .title
            } else {
                description.moveUp(wrappingAt: descriptionWrapWidth)
            }
        case .down:
            if description.isOnLastLine(wrappingAt: descriptionWrapWidth) {
                focus = .completed
            } else {
                description.moveDown(wrappingAt: descriptionWrapWidth)
            }
        default:
            description.apply(key)
        }
    }

    private mutating func editCompleted(_ key: Key) {
        switch key {
        case .char(" "), .char("x"), .enter:
            isCompleted.toggle()
        case .up:
            focus = .description
        default:
            break
        }
    }
}

import Testing
@testable import IdeaBoxConfig

import Foundation
import IdeaBoxFoundation
import Testing

/// The environment read a variable at a time: the process's own as `ProcessInfo` reads them,
/// or exactly the ones given.
@Suite struct EnvironmentVariablesTests {
    @Test func theProcessVariablesAreProcessInfos() throws {
        let all = ProcessInfo.processInfo.environment
        let path = try #require(all["PATH"])
        #expect(EnvironmentVariables.process["PATH"] == path)
        #expect(EnvironmentVariables.process["IDEABOX_NO_SUCH_VARIABLE_EVER"] == nil)
        #expect(EnvironmentVariables.process.all["PATH"] == path)
    }

    @Test func aVariableSetLaterIsRead() {
        // A name no other test uses: the process's environment is shared by every test.
        let name = "IDEABOX_ENVIRONMENT_VARIABLES_TEST_\(getpid())"
        setenv(name, "咖啡 value", 1)
        defer { unsetenv(name) }
        #expect(EnvironmentVariables.process[name] == "咖啡 value")
    }

    @Test func givenVariablesAreTheOnlyOnes() {
        let given = EnvironmentVariables(["LANG": "zh_TW.UTF-8", "EMPTY": ""])
        #expect(given["LANG"] == "zh_TW.UTF-8")
        #expect(given["EMPTY"] == "")
        #expect(given["PATH"] == nil)
        #expect(given.all == ["LANG": "zh_TW.UTF-8", "EMPTY": ""])
    }
}

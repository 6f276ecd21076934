import Foundation
import ProcessTestSupport
import Testing

/// Several `ideabox` processes writing one data directory at the same time.
@Suite(.takesTurns) struct ConcurrentProcessesTests {
    /// Runs `count` adds in a row from one shell, each a separate process; a failed add
    /// reports itself on stderr.
    private static let addLoop = """
        binary=$1; directory=$2; group=$3; count=$4
        i=1
        while [ "$i" -le "$count" ]; do
            "$binary" add "group $group idea $i" --data-dir "$directory" || echo "add $group/$i exited with $?" >&2
            i=$((i + 1))
        done
        """

    @Test(.timeLimitFromTurn(.seconds(300)))
    func twoGroupsOfTwoHundredAddsAllLand() async throws {
        let sandbox = try Sandbox()
        let binary = try IdeaBoxBinary.url()
        let directory = sandbox.directory.appendingPathComponent("shared")
        let perGroup = 200
        let groups = ["A", "B"]

        let results = await Self.together(groups.count) { index in
            try await IdeaBoxBinary.run(
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", Self.addLoop, "sh", binary.path, directory.path, groups[index], String(perGroup)],
                environment: sandbox.environment, currentDirectory: sandbox.directory, input: nil, timeLimit: .seconds(240))
        }

        var printedIds: Set<String> = []
        for (index, group) in groups.enumerated() {
            let result = try results[index].get()
            #expect(result.status == 0, "group \(group): \(result.status)")
            #expect(result.stderr == "", "group \(group) stderr:\n\(result.stderr)")
            #expect(!result.stderr.contains("locked"))
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == perGroup, "group \(group) printed \(lines.count) ids")
            #expect(lines.allSatisfy { UUID(uuidString: String($0)) != nil })
            printedIds.formUnion(lines.map(String.init))
        }
        #expect(printedIds.count == groups.count * perGroup)

        let ideas = try await sandbox.ideas(["--data-dir", directory.path])
        #expect(ideas.count == groups.count * perGroup)
        #expect(Set(ideas.map(\.idString)) == printedIds)
        let expectedTitles = Set(groups.flatMap { group in (1...perGroup).map { "group \(group) idea \($0)" } })
        #expect(Set(ideas.map(\.title)) == expectedTitles)
        #expect(ideas.map(\.createdAt) == ideas.map(\.createdAt).sorted(by: >))
        #expect(Set(ideas.map(\.createdAt)).count == ideas.count, "every edit of one device has its own millisecond")
        for group in groups {
            let ofGroup = ideas.filter { $0.title.hasPrefix("group \(group) ") }.reversed().map(\.title)
            #expect(ofGroup == (1...perGroup).map { "group \(group) idea \($0)" }, "each group's adds keep their order")
        }
        let text = try await sandbox.succeed(["list", "--all", "--data-dir", directory.path])
        #expect(text.split(separator: "\n").count == groups.count * perGroup)
    }

    /// The results of `count` runs started together, each awaited (on a thread of its own) as
    /// a child task, in the order of their indices.
    private static func together(
        _ count: Int, _ run: @escaping @Sendable (Int) async throws -> CommandResult
    ) async -> [Result<CommandResult, any Error>] {
        await withTaskGroup(of: (Int, Result<CommandResult, any Error>).self) { group in
            for index in 0..<count {
                group.addTask {
                    do { return (index, .success(try await run(index))) } catch { return (index, .failure(error)) }
                }
            }
            var results = [Result<CommandResult, any Error>](repeating: .failure(IdeaBoxProcessError(description: "never ran")), count: count)
            for await (index, result) in group { results[index] = result }
            return results
        }
    }

    @Test(.timeLimitFromTurn(.seconds(120)))
    func processesStartingTogetherOnANewDirectorySeedTheSamplesOnce() async throws {
        let sandbox = try Sandbox(samples: true)
        let binary = try IdeaBoxBinary.url()
        let count = 6
        let results = await Self.together(count) { index in
            try await IdeaBoxBinary.run(
                // `done`, not `add`: a first `add` starts an empty list, without the samples.
                executable: binary, arguments: ["done", "1dea000\(index + 1)"],
                environment: sandbox.environment, currentDirectory: sandbox.directory, input: nil)
        }
        for index in 0..<count {
            let result = try results[index].get()
            #expect(result.status == 0 && result.stderr == "", "process \(index): \(result)")
        }
        let ideas = try await sandbox.ideas()
        #expect(ideas.count == 7)
        #expect(ideas.filter(\.isCompleted).count == count, "each process found the samples")
        #expect(Set(ideas.map(\.deviceId)).count == 2, "one device id for the profile, made once, beside the samples'")
    }
}

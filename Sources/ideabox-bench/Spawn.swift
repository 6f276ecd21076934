import Foundation

/// Runs `executable` with `arguments` and waits for it, standard output into `output`,
/// standard input and error from and to /dev/null; returns the wait status.
///
/// `posix_spawn` and `waitpid` rather than Foundation's `Process`, for two reasons: its
/// spawning costs tens of milliseconds on Linux, more than the `ideabox` commands being
/// timed; and a tmux server forks from its first client and keeps what that client
/// inherited, while `Process` waits until its child's end of a socket or pipe closes.
func spawnAndWait(_ executable: URL, _ arguments: [String], environment: [String: String], output: URL) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid = pid_t()
    guard posix_spawn(&pid, executable.path, &actions, nil, argv, envp) == 0 else {
        throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executable.path])
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status
}

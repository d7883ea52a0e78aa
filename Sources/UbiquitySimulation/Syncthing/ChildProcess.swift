import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn` and waited for with `waitpid`. Foundation's
/// `Process` counts a child as running while any process it left behind still holds a
/// descriptor it inherited — and the hosts script leaves Syncthing behind on purpose — so the
/// script is run this way, which ends when the script itself ends.
struct ChildProcess: Sendable {
    let pid: pid_t

    /// Starts `arguments` (the first found on `$PATH`) with exactly `environment`, its stdin
    /// from /dev/null and its stdout and stderr appended to `log`.
    init(_ arguments: [String], environment: [String: String], log: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
        guard status == 0 else { throw SimulationError("cannot start \(arguments[0]): \(String(cString: strerror(status)))") }
        self.pid = pid
    }

    /// Waits at most `limit` seconds: the exit status (128 + N when signal N ended it), or `nil`
    /// while it still runs.
    func wait(limit: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(limit)
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signal = status & 0x7F
                return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            }
            if result < 0 && errno != EINTR { return -1 }
            if Date() >= deadline { return nil }
            usleep(20_000)
        }
    }

    /// Ends it (SIGKILL) and collects it.
    func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        _ = wait(limit: 5)
    }
}

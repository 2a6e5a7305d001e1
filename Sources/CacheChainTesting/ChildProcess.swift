import CacheChainCore
import Dispatch
package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A child process started with `posix_spawn`, for tests that run another program (the `cachechain`
/// executable, `redis-server`, `redis-cli`, `mount`).
///
/// Foundation's `Process.run()` on Linux lists `/proc/self/fd` with a 256-byte copy of each `dirent`
/// name, which reads past glibc's buffer now and then and crashes the whole test process (fixed upstream
/// in swift-corelibs-foundation#5472, after Swift 6.3.1). This type asks the kernel instead: the child
/// gets its three standard streams and nothing else (`posix_spawn_file_actions_addclosefrom_np`),
/// an empty signal mask (a test runner's blocked signals are not inherited) and a process group of its
/// own, as Foundation's did. Its exit is awaited on a thread of its own, never on the cooperative pool.
package final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A new pipe; the test holds the other end (``standardInput``, ``standardOutput``, ``standardError``).
        case pipe
        /// A file opened by path: read for stdin; created or truncated for stdout and stderr.
        case path(String)
        /// An open file descriptor of the test's, duplicated into the child (the test keeps it open).
        case descriptor(Int32)
    }

    /// The child's process id.
    package let processIdentifier: pid_t
    /// The write end of the child's stdin when it is ``Stream/pipe``.
    package let standardInput: FileHandle?
    /// The read end of the child's stdout when it is ``Stream/pipe``.
    package let standardOutput: FileHandle?
    /// The read end of the child's stderr when it is ``Stream/pipe``.
    package let standardError: FileHandle?

    private let exit = DispatchGroup()
    private let status = LockedValue<Int32?>(nil)

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - executable: The program's path (not searched in `PATH`).
    ///   - arguments: The arguments after the program's name.
    ///   - environment: The child's whole environment; `nil` passes the test process's own.
    ///   - standardInput: Where stdin comes from; `/dev/null` by default.
    ///   - standardOutput: Where stdout goes; `/dev/null` by default.
    ///   - standardError: Where stderr goes; `/dev/null` by default.
    /// - Throws: ``ChildProcessError`` naming the program and the failing call (`pipe2`, `posix_spawn`…).
    package init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        standardInput stdinStream: Stream = .null,
        standardOutput stdoutStream: Stream = .null,
        standardError stderrStream: Stream = .null
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [Int32] = []
        defer { for descriptor in childEnds { close(descriptor) } }
        var parentEnds: [Int32] = []

        func wire(_ stream: Stream, to target: Int32) throws -> FileHandle? {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
                return nil
            case .path(let path):
                let flags = target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC
                posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o600)
                return nil
            case .descriptor(let descriptor):
                posix_spawn_file_actions_adddup2(&actions, descriptor, target)
                return nil
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else {
                    throw ChildProcessError(executable: executable, call: "pipe", code: errno)
                }
                // Close-on-exec, so that children started at the same time by other tests do not inherit them.
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                let (parentEnd, childEnd) = target == 0 ? (ends[1], ends[0]) : (ends[0], ends[1])
                childEnds.append(childEnd)
                parentEnds.append(parentEnd)
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
                return FileHandle(fileDescriptor: parentEnd, closeOnDealloc: true)
            }
        }
        let input: FileHandle?
        let output: FileHandle?
        let errors: FileHandle?
        do {
            input = try wire(stdinStream, to: 0)
            output = try wire(stdoutStream, to: 1)
            errors = try wire(stderrStream, to: 2)
        } catch {
            for descriptor in parentEnds { close(descriptor) }
            throw error
        }
        _ = Self.addCloseFrom?(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = variables.map { strdup($0) } + [nil]
        defer { for variable in envp { free(variable) } }

        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            // `output` and friends close their descriptors when released.
            _ = (input, output, errors)
            throw ChildProcessError(executable: executable, call: "posix_spawn", code: result)
        }
        processIdentifier = pid
        standardInput = input
        standardOutput = output
        standardError = errors
        exit.enter()
        let status = self.status
        let exit = self.exit
        let spawned = pid
        Thread.detachNewThread {
            var raw: Int32 = 0
            while waitpid(spawned, &raw, 0) == -1 && errno == EINTR {}
            // Like Foundation's `terminationStatus`: the exit code, or the number of the signal that ended it.
            let code = raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
            status.withLock { $0 = code }
            exit.leave()
        }
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does not
    /// import (it is declared under `_GNU_SOURCE`); `nil` on an older C library, where the child inherits the
    /// test's descriptors that lack close-on-exec.
    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    /// Whether the child has not exited yet.
    package var isRunning: Bool { status.withLock { $0 } == nil }

    /// Waits for the child to exit without blocking a thread of the cooperative pool.
    /// - Returns: Its exit code, or the number of the signal that ended it.
    package func exitStatus() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            exit.notify(queue: .global()) { continuation.resume() }
        }
        return status.withLock { $0 } ?? -1
    }

    /// Blocks the calling thread until the child exits (for synchronous helpers only).
    /// - Returns: Its exit code, or the number of the signal that ended it.
    @discardableResult
    package func waitUntilExit() -> Int32 {
        exit.wait()
        return status.withLock { $0 } ?? -1
    }

    /// Sends `signal` to a child still running.
    /// - Parameter signal: E.g. `SIGKILL`, `SIGSTOP`, `SIGCONT`.
    package func send(_ signal: Int32) {
        if isRunning { kill(processIdentifier, signal) }
    }

    /// Everything the child writes on a piped stdout until it closes it.
    /// - Returns: The bytes as UTF-8 text (an empty string when stdout is not piped).
    package func readOutput() -> String {
        guard let standardOutput else { return "" }
        return String(decoding: standardOutput.readDataToEndOfFile(), as: UTF8.self)
    }
}

/// Starting a ``ChildProcess`` failed.
package struct ChildProcessError: Error, CustomStringConvertible {
    /// The program that was to be started.
    package let executable: String
    /// The system call that failed.
    package let call: String
    /// Its error number.
    package let code: Int32

    /// A sentence naming the program, the call and the system's reason.
    package var description: String { "could not start \(executable): \(call) failed: \(String(cString: strerror(code)))" }
}

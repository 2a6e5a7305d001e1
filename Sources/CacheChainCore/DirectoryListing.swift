#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a directory's names without Foundation (the spool sweep, the disk backend's walks).
package enum DirectoryListing {
    /// The names in a directory (without `.` and `..`); empty when it cannot be read.
    package static func names(in path: String) -> [String] {
        // A record is only as long as its name (`d_reclen`): read it in place, never the whole 256-byte `d_name`
        // array, which may run past the end of the buffer readdir filled (a crash seen on a large /tmp).
        guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name), let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let item = readdir(directory) {
            let name = String(cString: (UnsafeRawPointer(item) + nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

/// The one line `cachechain batch` writes before any other output, answering the caller's hello:
/// `{"type":"hello","name":"cachechain","version":"…","config":"…","concurrent":true}`.
public struct BatchHello: Sendable, Hashable {
    /// The program's name, `cachechain`.
    public var name: String
    /// The program's version.
    public var version: String
    /// A human-readable description of the pipeline: backend, capacities, mode.
    public var config: String

    /// The protocol version this implementation speaks.
    public static let protocolVersion: Int64 = 1

    /// Creates a hello.
    /// - Parameters:
    ///   - name: The program's name; `cachechain`.
    ///   - version: The program's version.
    ///   - config: The pipeline's description.
    public init(name: String = "cachechain", version: String, config: String) {
        self.name = name
        self.version = version
        self.config = config
    }

    /// The hello as one JSON line (without the line break); `concurrent` is always `true`: requests run
    /// concurrently and replies come in any order.
    public var jsonLine: String {
        JSONValue.object([
            .init("type", .string("hello")),
            .init("name", .string(name)),
            .init("version", .string(version)),
            .init("config", .string(config)),
            .init("concurrent", .bool(true)),
        ]).jsonText
    }
}

import Foundation

/// Wycheproof vector files copied into `Fixtures/` (see `Fixtures/NOTICE`), read relative to this source
/// file so tests never depend on anything outside the repository.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    struct File<Group: Decodable>: Decodable {
        var algorithm: String
        var numberOfTests: Int
        var testGroups: [Group]
    }

    static func load<Group: Decodable>(_ name: String, as: Group.Type) throws -> File<Group> {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        return try JSONDecoder().decode(File<Group>.self, from: data)
    }
}

struct AEADGroup: Decodable {
    var keySize: Int
    var ivSize: Int
    var tagSize: Int
    var tests: [AEADTest]
}

struct AEADTest: Decodable {
    var tcId: Int
    var key: String
    var iv: String
    var aad: String
    var msg: String
    var ct: String
    var tag: String
    var result: String
}

struct HKDFGroup: Decodable {
    var tests: [HKDFTest]
}

struct HKDFTest: Decodable {
    var tcId: Int
    var ikm: String
    var salt: String
    var info: String
    var size: Int
    var okm: String
    var result: String
}

struct MACGroup: Decodable {
    var keySize: Int
    var tagSize: Int
    var tests: [MACTest]
}

struct MACTest: Decodable {
    var tcId: Int
    var key: String
    var msg: String
    var tag: String
    var result: String
}

/// Parses hex test data.
func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return bytes
}

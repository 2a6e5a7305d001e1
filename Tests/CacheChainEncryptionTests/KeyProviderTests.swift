import CacheChainCore
@testable import CacheChainEncryption
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Key providers")
struct KeyProviderTests {
    func mode(_ path: String) -> mode_t {
        var info = stat()
        #expect(stat(path, &info) == 0)
        return info.st_mode & 0o777
    }

    @Test("a missing key file is created with mode 0600 and one random 32-byte key, and reopens to the same key")
    func createsKeyFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/cache.key"
        let created = try KeyFileProvider(path: path)
        #expect(mode(path) == 0o600)
        let key = try #require(created.currentKey)
        let reopened = try KeyFileProvider(path: path)
        #expect(try #require(reopened.currentKey).isSameKey(as: key))
        let other = try KeyFileProvider(path: directory.path + "/other.key")
        #expect(try #require(other.currentKey).id != key.id)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(key.id))
    }

    @Test("createIfMissing: false: a missing key file is an error naming it, and nothing is created")
    func missingKeyFileNotCreated() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/typo.key"
        let error = #expect(throws: CacheChainError.self) { try KeyFileProvider(path: path, createIfMissing: false) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("\(path) does not exist") == true)
        #expect(!FileManager.default.fileExists(atPath: path))
        _ = try KeyFileProvider(path: path)
        #expect(try KeyFileProvider(path: path, createIfMissing: false).currentKey != nil, "an existing file opens")
    }

    @Test("a key file readable by group or others is refused with an error naming the file and chmod 600")
    func refusesOpenKeyFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/cache.key"
        _ = try KeyFileProvider(path: path)
        #expect(chmod(path, 0o644) == 0)
        let error = #expect(throws: CacheChainError.self) { try KeyFileProvider(path: path) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains(path) == true)
        #expect(error?.message.contains("chmod 600 \(path)") == true)
        #expect(error?.message.contains("0644") == true)
        #expect(chmod(path, 0o600) == 0)
        #expect(try KeyFileProvider(path: path).currentKey != nil)
    }

    @Test("a key file written by hand (one base64 line, then ID + hex) opens; garbage is a clear error")
    func handWrittenKeyFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/hand.key"
        let base64 = Data(repeating: 0xAB, count: 32).base64EncodedString()
        let hexKey = String(repeating: "cd", count: 32)
        #expect(FileManager.default.createFile(atPath: path, contents: Data("\(base64)\n# old\nold-1 \(hexKey)\n".utf8), attributes: [.posixPermissions: 0o600]))
        let provider = try KeyFileProvider(path: path)
        #expect(provider.availableKeys.count == 2)
        #expect(provider.key(withID: "old-1") != nil)
        #expect(try #require(provider.currentKey).isSameKey(as: try EncryptionKey(bytes: [UInt8](repeating: 0xAB, count: 32))))
        let bad = directory.path + "/bad.key"
        #expect(FileManager.default.createFile(atPath: bad, contents: Data("not a key\n".utf8), attributes: [.posixPermissions: 0o600]))
        let error = #expect(throws: CacheChainError.self) { try KeyFileProvider(path: bad) }
        #expect(error?.message.contains(bad) == true)
    }

    @Test("rotating and destroying keys in a key file persists across reopening")
    func keyFileRotation() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/cache.key"
        let provider = try KeyFileProvider(path: path)
        let first = try #require(provider.currentKey)
        let second = try provider.rotate()
        #expect(provider.currentKey?.id == second.id)
        #expect(try KeyFileProvider(path: path).availableKeys.map(\.id) == [second.id, first.id])
        #expect(mode(path) == 0o600)
        #expect(try provider.destroyKey(withID: first.id))
        #expect(try KeyFileProvider(path: path).availableKeys.map(\.id) == [second.id])
    }

    @Test("the environment provider reads base64 and hex keys, current first, and names the variable in errors")
    func environment() throws {
        let base64 = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let hexKey = String(repeating: "0f", count: 32)
        let provider = try EnvironmentKeyProvider(variable: "K", environment: ["K": "\(base64), previous:\(hexKey)"])
        #expect(provider.availableKeys.count == 2)
        #expect(provider.availableKeys[1].id == "previous")
        #expect(try #require(provider.currentKey).isSameKey(as: try EncryptionKey(bytes: (0..<32).map { UInt8($0) })))
        let missing = #expect(throws: CacheChainError.self) { try EnvironmentKeyProvider(variable: "MISSING_KEY", environment: [:]) }
        #expect(missing?.message.contains("MISSING_KEY") == true)
        let short = #expect(throws: CacheChainError.self) { try EnvironmentKeyProvider(variable: "K", environment: ["K": "c2hvcnQ="]) }
        #expect(short?.code == .invalidConfiguration)
        #expect(short?.message.contains("c2hvcnQ") == false)
    }

    @Test("key bytes never appear in descriptions, debug descriptions or dumps")
    func noKeyInDescriptions() throws {
        let bytes = [UInt8](repeating: 0x5A, count: 32)
        let key = try EncryptionKey(bytes: bytes, id: "k1")
        var dumped = ""
        dump(key, to: &dumped)
        let texts = [key.description, key.debugDescription, String(describing: key), String(reflecting: key), "\(key)", dumped]
        let encodings = [Data(bytes).base64EncodedString(), String(repeating: "5a", count: 32), String(repeating: "Z", count: 32), "90, 90"]
        for text in texts {
            #expect(text.contains("k1"))
            for encoding in encodings { #expect(!text.contains(encoding), "key bytes in \(text)") }
        }
    }

    @Test("keys must be 32 bytes with a well-formed ID; derived IDs differ per key")
    func keyValidation() throws {
        #expect(throws: CacheChainError.self) { try EncryptionKey(bytes: [UInt8](repeating: 1, count: 16)) }
        #expect(throws: CacheChainError.self) { try EncryptionKey(bytes: [UInt8](repeating: 1, count: 32), id: "has space") }
        #expect(try EncryptionKey.random().id != EncryptionKey.random().id)
        #expect(try EncryptionKey(bytes: [UInt8](repeating: 1, count: 32)).id == EncryptionKey(bytes: [UInt8](repeating: 1, count: 32)).id)
    }
}

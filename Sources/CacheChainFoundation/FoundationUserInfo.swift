import CacheChainCore
import Foundation

/// The key under which a `CachedURLResponse`'s untyped `userInfo` is persisted with a CacheChain entry: its
/// property-list values, as one binary property list.
enum FoundationUserInfoKey: CacheUserInfoKey {
    typealias Value = Data
    static let name = "foundation-user-info"
}

extension CacheUserInfo {
    /// The entry's `userInfo` as Foundation code sees it in a `CachedURLResponse`: the property-list values
    /// stored through Foundation, plus CacheChain's own typed values (e.g. a plugin's cached date) under their
    /// names as JSON text.
    var foundationUserInfo: [AnyHashable: Any] {
        var info: [AnyHashable: Any] = [:]
        for name in names where name != FoundationUserInfoKey.name {
            if let text = jsonText(forName: name) { info[name] = text }
        }
        if let data = self[FoundationUserInfoKey.self],
            let stored = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any]
        {
            for (key, value) in stored { info[key] = value }
        }
        return info
    }

    /// Replaces the property-list values stored through Foundation with those of `info`.
    ///
    /// Entries whose key is a String and whose value is a property-list type (`String`, `Int`, `Double`,
    /// `Bool`, `Date`, `Data`, arrays and string-keyed dictionaries of them) are kept; others cannot be
    /// persisted and are left out. Keys that name one of CacheChain's typed values are not copied (those values
    /// keep their typed form).
    /// - Parameter info: A `CachedURLResponse.userInfo`.
    mutating func setFoundationUserInfo(_ info: [AnyHashable: Any]?) {
        let typedNames = Set(names)
        var storable: [String: Any] = [:]
        for (key, value) in info ?? [:] {
            guard let key = key.base as? String, !typedNames.contains(key) || key == FoundationUserInfoKey.name,
                PropertyListSerialization.propertyList(value, isValidFor: .binary)
            else { continue }
            storable[key] = value
        }
        self[FoundationUserInfoKey.self] = storable.isEmpty
            ? nil : try? PropertyListSerialization.data(fromPropertyList: storable, format: .binary, options: 0)
    }
}

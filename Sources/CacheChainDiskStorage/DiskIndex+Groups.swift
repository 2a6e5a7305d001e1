import CacheChainCore

extension DiskIndex {
    /// The tag-table name that lists a row under a cache group of an origin (RFC 9875): `\u{1}group ` + origin +
    /// ` ` + group. The leading control character keeps it apart from every userInfo name an application uses
    /// (`CacheUserInfoKey` names are printable), so purge by userInfo name never meets it.
    static func groupTag(origin: String, group: String) -> String {
        "\u{1}group " + origin + " " + group
    }

    /// The group tags of an entry: one per `Cache-Groups` member, on the key's origin.
    static func groupTags(of entry: CacheEntry) -> [String] {
        let groups = entry.cacheGroups
        guard !groups.isEmpty else { return [] }
        let origin = entry.key.origin
        return groups.map { groupTag(origin: origin, group: $0) }
    }
}

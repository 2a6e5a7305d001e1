import HTTPTypes

extension HTTPFields {
    /// `self[name]`, without the generic comma-join when the field occurs once or not at all — the
    /// common case, read on every cache hit (`Date`); a repeated field is joined as the subscript joins it.
    /// - Parameter name: The field name.
    /// - Returns: The value, the joined values, or `nil` when absent.
    func fieldValue(_ name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name {
            if found != nil { return self[name] }
            found = field.value
        }
        return found
    }
}

extension BlobRef {
    /// Every attachment value inside `value` (itself, or at any depth of its arrays and
    /// objects), in document order. An attachment's own fields are not searched further.
    /// Iterative, so hostile nesting cannot exhaust the stack.
    static func collect(from value: AnyValue, into found: inout [BlobRef]) {
        var stack: [AnyValue] = [value]
        while let next = stack.popLast() {
            switch next {
            case .object(let object):
                if let blob = BlobRef(next) {
                    found.append(blob)
                } else {
                    for entry in object.entries.reversed() { stack.append(entry.value) }
                }
            case .array(let elements):
                stack.append(contentsOf: elements.reversed())
            default:
                continue
            }
        }
    }

    /// Whether `value` holds an object or array at all: scalars (most values) cannot
    /// hold an attachment, and are skipped without allocating.
    static func mayContain(_ value: AnyValue) -> Bool {
        switch value {
        case .object, .array: true
        default: false
        }
    }
}

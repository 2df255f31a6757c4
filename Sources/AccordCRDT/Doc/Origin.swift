/// Who made a transaction: a label that observers and `onUpdate` handlers receive, so
/// a sync provider can recognise (and not echo back) the updates it applied itself.
public struct Origin: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var name: String
    public init(_ name: String) { self.name = name }
    public init(stringLiteral value: String) { self.name = value }
    public var description: String { name }
}

/// A handle returned by `observe` and `onUpdate`; call ``cancel()`` to unsubscribe.
public final class Subscription {
    private var onCancel: (() -> Void)?
    init(_ onCancel: @escaping () -> Void) { self.onCancel = onCancel }
    public func cancel() {
        onCancel?()
        onCancel = nil
    }
}

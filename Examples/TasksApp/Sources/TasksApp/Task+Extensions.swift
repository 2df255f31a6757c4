import Foundation

// Hand-written code beside the generated models: codegen never touches it.
extension Task {
    /// Urgent: high priority and due within a day of `now`.
    func isUrgent(now: Date) -> Bool {
        guard let due else { return false }
        return priority >= 3 && due.timeIntervalSince(now) < 86_400
    }
}

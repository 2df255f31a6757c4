import AccordCRDT

/// `withUnsafeBytes` and `withUnsafeMutableBytes` for closures with typed throws: the
/// standard library's versions rethrow as `any Error`, which would erase the
/// ``AccordError`` the blob code promises.
extension Array where Element == UInt8 {
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(AccordError) -> R) throws(AccordError) -> R {
        try withUnsafeBytes { bytes in Result { () throws(AccordError) in try body(bytes) } }.get()
    }

    mutating func withMutableBytes<R>(
        _ body: (UnsafeMutableRawBufferPointer) throws(AccordError) -> R
    ) throws(AccordError) -> R {
        try withUnsafeMutableBytes { bytes in Result { () throws(AccordError) in try body(bytes) } }.get()
    }
}

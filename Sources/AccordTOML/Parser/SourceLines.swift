/// Turns byte offsets into line/column positions, and checks that the input is UTF-8.
///
/// One pass up front records where each line starts and validates the UTF-8, so the
/// grammar can work on raw bytes and never re-check encodings. Positions are asked for
/// in nearly increasing order (every key records one), so the line is found by walking
/// forward from the last answer, and the column is counted on from the last column
/// asked on the same line: a 10 MB one-line inline table stays linear.
struct SourceLines {
    private(set) var lineStarts: [Int] = [0]
    private var lastLine = 0
    private var columnOffset = 0
    private var columnValue = 1

    /// Scans `bytes`; returns the offset of the first byte that is not valid UTF-8.
    mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 {
                i += 1
                if b == 0x0A { lineStarts.append(i) }
                continue
            }
            guard let length = Self.sequenceLength(bytes, at: i) else { return i }
            i += length
        }
        return nil
    }

    /// The length of the well-formed UTF-8 sequence at `i` (Unicode 15, table 3-7:
    /// no overlongs, no surrogates, nothing above U+10FFFF), or nil.
    private static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Int? {
        let b0 = bytes[i]
        let n = bytes.count
        func cont(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            i + k < n && bytes[i + k] >= low && bytes[i + k] <= high
        }
        switch b0 {
        case 0xC2...0xDF: return cont(1) ? 2 : nil
        case 0xE0: return cont(1, 0xA0) && cont(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE, 0xEF: return cont(1) && cont(2) ? 3 : nil
        case 0xED: return cont(1, 0x80, 0x9F) && cont(2) ? 3 : nil
        case 0xF0: return cont(1, 0x90) && cont(2) && cont(3) ? 4 : nil
        case 0xF1...0xF3: return cont(1) && cont(2) && cont(3) ? 4 : nil
        case 0xF4: return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : nil
        default: return nil
        }
    }

    /// The position of byte `offset`. Column counts Unicode scalars (bytes that are not
    /// UTF-8 continuation bytes); an offset inside a bad sequence still gets a column.
    mutating func position(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> TOMLPosition {
        var line = lastLine
        if offset < lineStarts[line] {
            // Rare (errors pointing back): binary search.
            var low = 0
            var high = line
            while low < high {
                let mid = (low + high + 1) / 2
                if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
            }
            line = low
        } else {
            while line + 1 < lineStarts.count && lineStarts[line + 1] <= offset { line += 1 }
        }
        if line != lastLine || offset < columnOffset {
            lastLine = line
            columnOffset = lineStarts[line]
            columnValue = 1
        }
        var i = columnOffset
        var column = columnValue
        let end = min(offset, bytes.count)
        while i < end {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        columnOffset = max(i, columnOffset)
        columnValue = column
        return TOMLPosition(line: line + 1, column: column)
    }
}

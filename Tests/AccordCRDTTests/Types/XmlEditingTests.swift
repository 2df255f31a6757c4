import AccordTesting
import Foundation
import Testing
@testable import AccordCRDT

/// Editing XML trees: the same edits as pycrdt's (Yrs) give byte-identical updates and
/// the same `toString()`, each side reads the other's tree, observers see the changes,
/// and undo reverts them.
@Suite struct XmlEditingTests {
    /// The edits, made on an Accord doc (client 7).
    static func edit(_ doc: Doc) throws {
        let fragment = try doc.getXmlFragment("f")
        let paragraph = try fragment.insertElement(0, name: "p")
        try paragraph.setAttribute("class", "x")
        let words = try paragraph.insertText(0)
        try words.text!.insert(0, "hi there")
        try words.text!.format(0, 2, ["bold": true])
        let tail = try fragment.insertText(1)
        try tail.text!.insert(0, "tail")
        let heading = try fragment.insertElement(0, name: "h1")
        let title = try heading.insertText(0)
        try title.text!.insert(0, "Title")
        try paragraph.removeAttribute("class")
        try paragraph.setAttribute("data-id", "7")
        let list = try fragment.insertElement(3, name: "ul")
        _ = try list.insertElement(0, name: "li")
        _ = try list.insertElement(1, name: "li")
        try list.delete(0)
        try words.text!.delete(2, 1)
        try fragment.delete(2)  // the tail text
    }

    /// The same edits in pycrdt, then its state and `str()`, and what it makes of ours.
    static let pycrdtScript = """
    import sys
    from pycrdt import Doc, XmlFragment, XmlElement, XmlText
    d = Doc(client_id=7)
    f = d.get('f', type=XmlFragment)
    p = f.children.insert(0, XmlElement('p'))
    p.attributes['class'] = 'x'
    w = p.children.insert(0, XmlText())
    w.insert(0, 'hi there')
    w.format(0, 2, {'bold': True})
    t = f.children.insert(1, XmlText())
    t.insert(0, 'tail')
    h = f.children.insert(0, XmlElement('h1'))
    ti = h.children.insert(0, XmlText())
    ti.insert(0, 'Title')
    del p.attributes['class']
    p.attributes['data-id'] = '7'
    ul = f.children.insert(3, XmlElement('ul'))
    ul.children.insert(0, XmlElement('li'))
    ul.children.insert(1, XmlElement('li'))
    del ul.children[0]
    del w[2:3]
    del f.children[2]
    print(d.get_update().hex())
    print(str(f))
    ours = Doc()
    ours.apply_update(bytes.fromhex(sys.argv[1]))
    print(str(ours.get('f', type=XmlFragment)))
    """

    static func runPython(_ script: String, _ arguments: [String]) throws -> [String] {
        let result = try PythonScript.run(script, arguments: arguments)
        guard result.status == 0 else { throw XmlTestFailure("pycrdt script failed") }
        return result.output.split(separator: "\n").map(String.init)
    }

    @Test func updatesAndStringsEqualPycrdts() throws {
        let doc = Doc(clientID: 7)
        try Self.edit(doc)
        let ours = doc.encodeStateAsUpdate()
        let lines = try Self.runPython(Self.pycrdtScript, [ours.map { String(format: "%02x", $0) }.joined()])
        #expect(lines.count == 3)
        let expected = "<h1>Title</h1><p data-id=\"7\"><bold>hi</bold>there</p><ul><li></li></ul>"
        #expect(try doc.getXmlFragment("f").toString() == expected)
        #expect(lines[1] == expected, "pycrdt's own tree")
        #expect(lines[2] == expected, "pycrdt reading ours")
        #expect(ours.map { String(format: "%02x", $0) }.joined() == lines[0], "byte-identical state")
        // And we read pycrdt's.
        let theirs = Doc(clientID: 8)
        try theirs.applyUpdate(Self.hexBytes(lines[0]))
        #expect(try theirs.getXmlFragment("f").toString() == expected)
    }

    static func hexBytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    @Test func readingTheTree() throws {
        let doc = Doc(clientID: 1)
        let fragment = try doc.getXmlFragment("f")
        let element = try fragment.insertElement(0, name: "Note")
        try element.setAttribute("n", value: .int(3))
        #expect(element.nodeName == "Note")
        #expect(element.getAttribute("n") == .int(3))
        #expect(fragment.length == 1)
        #expect(try fragment.child(0).nodeName == "Note")
        #expect(fragment.toString() == "<note n=\"3\"></note>")
        #expect(fragment.text == nil)
        // Misuse is refused with a code, and changes nothing.
        let before = doc.encodeStateAsUpdate()
        #expect { try fragment.setAttribute("a", "b") } throws: { ($0 as? AccordError)?.code == .invalidType }
        let text = try element.insertText(0)
        let afterText = doc.encodeStateAsUpdate()
        #expect(afterText != before)
        #expect { try text.insertElement(0, name: "x") } throws: { ($0 as? AccordError)?.code == .invalidType }
        #expect { try fragment.insertElement(5, name: "x") } throws: { ($0 as? AccordError)?.code == .indexOutOfBounds }
        #expect { try fragment.insertElement(0, name: "") } throws: { ($0 as? AccordError)?.code == .invalidArgument }
        #expect(doc.encodeStateAsUpdate() == afterText)
    }

    @Test func observersAndUndo() throws {
        let doc = Doc(clientID: 1)
        let fragment = try doc.getXmlFragment("f")
        var events = 0
        let subscription = fragment.observeDeep { events += $0.count }
        let undo = try UndoManager(scope: [.xml(fragment)], options: .init(captureTimeout: 0))
        let element = try fragment.insertElement(0, name: "p")
        try element.setAttribute("k", "v")
        let text = try element.insertText(0)
        try text.text!.insert(0, "abc")
        #expect(fragment.toString() == "<p k=\"v\">abc</p>")
        #expect(events == 4)
        #expect(try undo.undo())
        #expect(fragment.toString() == "<p k=\"v\"></p>")
        #expect(try undo.undo())
        #expect(try undo.undo())
        #expect(fragment.toString() == "<p></p>")
        #expect(try undo.undo())
        #expect(fragment.toString() == "")
        while try undo.redo() {}
        #expect(fragment.toString() == "<p k=\"v\">abc</p>")
        _ = subscription
    }
}

private struct XmlTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

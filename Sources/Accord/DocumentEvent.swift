/// An event about one document, so ``AccordDocument/stream(for:)`` can select it.
public protocol DocumentEvent: AccordEvent {
    var documentID: DocumentID { get }
}

extension DocumentSyncStateChangedEvent: DocumentEvent {}
extension WriteRejectedEvent: DocumentEvent {}
extension LocalChangesDroppedEvent: DocumentEvent {}
extension DocumentChangedEvent: DocumentEvent {}
extension PermissionEvent: DocumentEvent {}
extension DocumentMetadataChangedEvent: DocumentEvent {}

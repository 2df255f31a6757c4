import AccordCRDT
import AccordStore

extension RecordIndex {
    /// Writes the rows of `records` of `model`, records new to `document` that were
    /// written as an update without a `Doc` (``NewRecordsUpdate``), in one transaction:
    /// what projecting them from the document would write. `records` are as saved
    /// (``RecordBatchWrite/add(new:to:existing:milliseconds:random:)``: no null values).
    /// - Throws: `MODEL_NOT_REGISTERED` when the index has no such model.
    package func insertNew(_ records: [RecordData], model: String, document: DocumentID) throws(AccordError) {
        guard !records.isEmpty else { return }
        try locked { () throws(AccordError) in
            guard let modelTables = tables[model] else {
                throw AccordError(.modelNotRegistered, "the index has no model \"\(model)\"", details: ["model": model])
            }
            try transaction { () throws(AccordError) in
                // Records as saved hold no nulls, as the rows never do (absent and null read alike).
                try insertMany(records, into: modelTables, document: document, created: true)
            }
            tally.projectedRecords += records.count
        }
    }
}

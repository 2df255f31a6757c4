import AccordCRDT
import AccordStore

extension RecordIndex {
    /// Writes the rows of `records` of `model`, records new to `document` that were
    /// written as an update without a `Doc` (``NewRecordsUpdate``), in one transaction:
    /// what projecting them from the document would write. `records` are as saved
    /// (``RecordBatchWrite/add(new:to:existing:milliseconds:random:)``: no null values).
    ///
    /// Returns false when the index held a row for one of the ids already, or one id came
    /// twice (the rows are then written over each other, as a projection would): the
    /// records were not all new after all, which the caller may want to know.
    /// - Throws: `MODEL_NOT_REGISTERED` when the index has no such model.
    package func insertNew(_ records: [RecordData], model: String, document: DocumentID) throws(AccordError) -> Bool {
        guard !records.isEmpty else { return true }
        return try locked { () throws(AccordError) -> Bool in
            guard let modelTables = tables[model] else {
                throw AccordError(.modelNotRegistered, "the index has no model \"\(model)\"", details: ["model": model])
            }
            var allNew = true
            try transaction { () throws(AccordError) in
                // Records as saved hold no nulls, as the rows never do (absent and null read alike).
                allNew = try insertMany(records, into: modelTables, document: document, created: true)
            }
            tally.projectedRecords += records.count
            return allNew
        }
    }
}

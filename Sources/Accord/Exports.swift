// The one module apps import: the engine, the store, the client and typed records,
// re-exported, so `import Accord` gives `Doc`, `DocumentStore`, `AccordClient`, their
// events, and `registerModels` with its queries.
@_exported import AccordCRDT
@_exported import AccordRecords
@_exported import AccordStore
@_exported import AccordSync

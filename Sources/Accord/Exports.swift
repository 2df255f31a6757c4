// The one module apps import: the engine, the store, the client, typed records and the
// JSON document database, re-exported, so `import Accord` gives `Doc`, `DocumentStore`,
// `AccordClient`, their events, `registerModels` with its queries, and `Database`.
@_exported import AccordCRDT
@_exported import AccordDatabase
@_exported import AccordRecords
@_exported import AccordStore
@_exported import AccordSync

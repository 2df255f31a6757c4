// The one module apps import: the engine, the store and the client, re-exported, so
// `import Accord` gives `Doc`, `DocumentStore`, `AccordClient` and their events.
@_exported import AccordCRDT
@_exported import AccordStore
@_exported import AccordSync

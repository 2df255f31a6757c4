/// Help and version texts, kept together so `--help` output is reviewed in one place.
enum Usage {
    static let version = "accord 0.1.0 (AccordCRDT; Yjs update v1)"

    static let main = """
        accord: command-line tools for Accord and Yjs documents.

        Usage:
          accord yjs merge <update>... -o <file>   merge Yjs update v1 files into one update
          accord yjs inspect <update> [--json]     show what a Yjs update v1 file holds
          accord serve [--dev] [--port <n>] ...    run the sync server (see 'accord serve --help')
          accord token --sub <user> [--ttl <seconds>] [--secret-file <path>]
                                                   mint a bearer token for the sync server
          accord records put|query|count|aggregate --store <file> --schema <file> ...
                                                   typed records in a client store
          accord toml decode|encode                TOML on stdin to tagged JSON on stdout, or back
          accord --help                            this text
          accord --version                         the version

        Run 'accord yjs --help', 'accord serve --help', 'accord token --help',
        'accord records --help' or 'accord toml --help' for details.
        \(exitStatuses)
        """

    static let yjs = """
        accord yjs: work with Yjs update v1 files (what Y.encodeStateAsUpdate writes).

        Usage:
          accord yjs merge <update>... -o <file>
              Applies each update file, in the order given, to a fresh document and
              writes the document's full state (encodeStateAsUpdate) to <file>.
              Deleted content is garbage-collected, as in a Yjs Doc. The order of the
              files does not change the resulting document. Structs or deletions still
              waiting for a missing predecessor are kept in the output, as Yjs does.

          accord yjs inspect <update> [--json]
              Prints the update's structs per client (clock, kind, length, origin,
              right origin, parent, parent key, content), the state vector the update
              alone provides, its delete set, the state vector of a document after
              applying it, and each root type's JSON view. A root's kind is inferred
              from its content: map entries make a map, text items a text (shown as
              string and delta), anything else an array. Parent and parent key are on
              the wire only for items without origins; '-' means not written.
              --json  print one JSON document with the same information.
        \(exitStatuses)
        """

    static let serve = """
        accord serve: the Accord sync server, on the embedded SQLite store.

        Usage:
          accord serve [--host <addr>] [--port <n>] [--data <dir>] [--dev | --secret-file <file>]
                       [--no-create-on-connect] [--max-frame-bytes <n>] [--max-document-bytes <n>]
                       [--max-messages-per-second <n>] [--max-queued-bytes <n>] [--max-header-bytes <n>]
                       [--max-request-body-bytes <n>] [--header-timeout <seconds>]
                       [--max-connections-per-address <n>] [--max-connections-per-user <n>]
                       [--max-rooms-per-connection <n>] [--max-documents-per-user-per-hour <n>]
                       [--max-partial-bytes-per-user <n>]

          Serves WebSocket sync on ws://<host>:<port>/v1/sync/<document> (y-websocket
          framing; stock Yjs clients work) and /v1/sync (Accord clients, multiplexed),
          the REST API under /v1/documents, GET /healthz and GET /metrics.
          Every request needs a bearer token (Authorization header or ?token=) signed
          with the server's secret: ACCORD_SECRET, or --secret-file.
          --host        address to bind (default 127.0.0.1; 0.0.0.0 for all)
          --port        port (default 8787; 0 picks a free one)
          --data        directory of the document store (default ./accord-data)
          --dev         create (once) a secret in <data>/dev.secret and print a token
                        for user "dev" as 'dev token: <token>'
          --no-create-on-connect
                        refuse to open document ids that do not exist yet
          --max-frame-bytes                  largest WebSocket message (16 MiB)
          --max-document-bytes               largest stored document (256 MiB)
          --max-messages-per-second          per connection (500)
          --max-queued-bytes                 bytes one connection may have waiting to be
                                             sent (4 MiB, at least 65536); a client that
                                             stops reading and passes it is closed with
                                             SLOW_CONSUMER (4408). One larger message,
                                             such as a big document's sync step 2, may
                                             wait besides
          --max-header-bytes                 request line + headers (16384; 431 beyond)
          --max-request-body-bytes           REST request body (16 MiB; 413 beyond)
          --header-timeout                   seconds to send a complete request head, of
                                             any method, after connecting or after the
                                             previous response (10)
          --max-connections-per-address      connections from one address not yet
                                             WebSockets (256, 0 for no cap; 503 beyond);
                                             raise it behind a reverse proxy
          --max-connections-per-user         open sync connections per user (64)
          --max-rooms-per-connection         documents open on one connection (256)
          --max-documents-per-user-per-hour  documents a user may create (1000)
          --max-partial-bytes-per-user       bytes of partly received messages one
                                             user's connections may hold (64 MiB)
          The data directory is created 0700 and the files in it 0600.
          Prints 'listening <port>' when ready. SIGTERM or SIGINT closes the
          connections and flushes every document before exiting.
        \(exitStatuses)
        """

    static let token = """
        accord token: mint a bearer token for the Accord sync server.

        Usage:
          accord token --sub <user> [--ttl <seconds>] [--secret-file <path>]
              Prints an HS256 JWT whose sub is <user> and which expires <seconds>
              from now (default 3600), followed by a newline. Clients send it as
              'Authorization: Bearer <token>' or, from browsers, as '?token=<token>'.
              The signing secret is the server's: the file given with --secret-file
              (one trailing newline ignored), else the ACCORD_SECRET environment
              variable. It must be at least 32 bytes.
        \(exitStatuses)
        """

    static let records = """
        accord records: typed records in a client store (a DocumentStore file), for scripts.

        Usage:
          accord records put --store <file> --doc <id> --schema <file> [--model <name>]
              Writes the records on stdin (ndjson) into one document, in one transaction.
          accord records query --store <file> --schema <file> [--model <name>] [<filter>]
                               [--sort <field:1,field:-1>] [--limit <n>] [--cursor <c>]
                               [--documents <id,id>]
              Prints one page of records: {"data": [...], "nextCursor": ..., "hasMore": ...}.
          accord records count --store <file> --schema <file> [--model <name>] [<filter>]
                               [--documents <id,id>]
              Prints {"count": n}.
          accord records aggregate --store <file> --schema <file> [--model <name>]
                                   [--options <json>] [--documents <id,id>]
              Prints {"rows": [...]}, one object of group keys and results per row.
        \(recordsCommon)
        Run 'accord records <verb> --help' for each verb's details.
        \(exitStatuses)
        """

    static let recordsCommon = """

          --store      the client store (SQLite file); its records index is <store>.records
                       beside it, the one an app's client keeps, created or brought up to
                       date as needed. query, count and aggregate read every document of
                       the store whose content is on the device (or those --documents names).
          --schema     a schema file: one model as JSON, or {"models": [...]}
                       (docs/records.md, "CLI and schema files")
          --model      the model to use; may be left out when the file holds one model
          --documents  comma-separated document ids to read (each must be in the store)
          Values are JSON: numbers, strings (dates as YYYY-MM-DDTHH:MM:SS.sssZ), booleans,
          null, and a string set as an array of strings. Output is one line of JSON.
        """

    static let recordsPut = """
        accord records put: write records into a document of a client store.

        Usage:
          accord records put --store <file> --doc <id> --schema <file> [--model <name>] < records.ndjson
              Reads one JSON object per line from stdin (blank lines are skipped).
              "id" is the record's id; a record without one gets a ULID when the
              model's id field is autoAssign, and is refused otherwise. Every other key
              is a field. A record the document does not hold yet gets the model's
              defaults (and ULIDs for autoAssign fields) for fields it leaves out; an
              existing record gets only the fields given. Unique fields and
              constraints are checked against every document of the store.
              All records go into document <id> (created if missing) in one
              transaction, the store is flushed, and the records index updated. If any
              record is refused, nothing is written. Prints {"written": n, "ids": [...]}.
        \(recordsCommon)\(exitStatuses)
        """

    static let recordsQuery = """
        accord records query: one page of the records of a model that match a filter.

        Usage:
          accord records query --store <file> --schema <file> [--model <name>] [<filter>]
                               [--sort <field:1,field:-1>] [--limit <n>] [--cursor <c>]
                               [--documents <id,id>]
              <filter>   a JSON object, e.g. '{"done": false, "priority": {"$gte": 2}}'
                         (operators $eq $ne $gt $gte $lt $lte $in $nin $startsWith
                         $endsWith $containsText $contains $exists $and $or); default {}
              --sort     sort keys with direction 1 or -1; ties by id, then document
              --limit    at most <n> records; "nextCursor" then names the next page
              --cursor   start after the page this nextCursor ended (same query)
              Prints {"data": [records with "id", "document" and their fields],
              "nextCursor": text or null, "hasMore": true or false}.
        \(recordsCommon)\(exitStatuses)
        """

    static let recordsCount = """
        accord records count: how many records of a model match a filter.

        Usage:
          accord records count --store <file> --schema <file> [--model <name>] [<filter>]
                               [--documents <id,id>]
              Prints {"count": n}. The filter is as for 'accord records query'.
        \(recordsCommon)\(exitStatuses)
        """

    static let recordsAggregate = """
        accord records aggregate: group the records of a model and compute per group.

        Usage:
          accord records aggregate --store <file> --schema <file> [--model <name>]
                                   [--options <json>] [--documents <id,id>]
              --options  {"groupBy": ["category", {"field": "tags", "contains": "urgent"}],
                          "operations": [{"type": "count"}, {"type": "sum", "field": "hours"}],
                          "filter": {...}, "sort": {"field": "count", "direction": -1},
                          "limit": 10, "documents": ["a", "b"]}
                         every key optional; operations default to one count. Types:
                         count, sum, avg, min, max. One operation's result is "value";
                         with several, "count", "sum_<field>", "avg_<field>", ...
              Prints {"rows": [...]}, each row the group keys then the results.
        \(recordsCommon)\(exitStatuses)
        """

    static let toml = """
        accord toml: TOML 1.0 documents to and from the tagged JSON of the TOML test suites.

        Usage:
          accord toml decode < doc.toml
              Parses the TOML document on stdin and prints it as one line of JSON:
              tables as objects (keys in document order), arrays as arrays, and each
              scalar as {"type": T, "value": "<text>"} with T one of string, integer,
              float (value "inf", "-inf" or "nan" for the specials), bool, datetime,
              datetime-local, date-local, time-local. Invalid TOML prints
              'error: MALFORMED_TOML: stdin: line L, column C: <what was expected>'
              on stderr and exits 1.
          accord toml encode < doc.json
              The reverse: reads that tagged JSON on stdin and writes a TOML document
              that decodes to the same values. Invalid JSON or an unknown type exits 65
              (MALFORMED_JSON).
        \(exitStatuses)
        """

    static let exitStatuses = """

        Errors go to stderr as 'error: CODE: message'. Exit status: 0 success,
        2 usage (INVALID_ARGUMENT), 65 malformed input (MALFORMED_UPDATE, MALFORMED_JSON;
        for records INVALID_QUERY, INVALID_SCHEMA, UNIQUE_VIOLATION, or INVALID_ARGUMENT
        about a record read from stdin), 74 unreadable or unwritable file (IO_ERROR),
        1 anything else (invalid TOML for 'accord toml decode': MALFORMED_TOML).
        """
}

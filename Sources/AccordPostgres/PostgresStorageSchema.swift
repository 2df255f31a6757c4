import AccordCRDT

/// The tables a ``PostgresStorageAdapter`` keeps in its schema, and the statements it
/// runs on them.
///
/// Names (categories, keys) are `bytea`, not `text`: `bytea` compares byte for byte
/// whatever the database's collation, which is the exact, ascending order the storage
/// protocol promises. Logs are rows keyed by (category, key, sequence), so a log's
/// last sequence is one descent of the primary-key index. A run of appends to one log
/// is one call of `accord_append` with arrays: the order check once, then one
/// multi-row insert, rather than a function call per entry (which made a flush of many
/// keystrokes cost a server-side round of PL/pgSQL each).
///
/// **Shared logs** (a cluster's document logs, which several nodes append to) are
/// numbered by PostgreSQL instead: `accord_log_heads` keeps each log's highest number
/// ever given (truncation never lowers it, so a number is never reused), and its row
/// lock, held to the commit, orders concurrent appenders, so per log the numbers commit
/// in ascending order and a reader never sees a later entry before an earlier one. The
/// writer's numbers are only a floor (a log written before it was shared continues
/// after them). Each append notifies the schema's channel (`log <writer> <category>
/// <key> <first> <last> <entries>`, hex names; the entries, comma-separated hex, only
/// when under 3000 bytes together), delivered at the commit.
///
/// **A batch's shared appends** (`accord_append_shared_many`) are one call at the end of
/// its transaction, taking the head rows in key order, so a head row is held only for
/// that call and the commit (not the whole batch), and two batches never deadlock. Its
/// notices are not sent in that transaction: PostgreSQL serializes every committing
/// transaction that notified, database-wide, through its WAL flush (to queue notices in
/// commit order), which made all nodes' commits take turns at the disk. They are kept in
/// the session setting `accord.notices` and sent by `accord_notify_pending` in a second
/// transaction right behind it in the same pipeline, committed without waiting for the
/// disk (a notice is a hint; the entries it names are durable before it is sent).
enum PostgresStorageSchema {
    /// The layout this code reads and writes (`accord_meta.version`).
    /// Layout 2 added `accord_log_heads` and `accord_append_shared` (shared logs, for a
    /// cluster); layout 3 `accord_append_shared_many` and `accord_notify_pending`. An
    /// older schema is brought up to date on open, nothing rewritten.
    static let version: Int64 = 3

    /// A schema name we create and put in SQL text: lower-case letters, digits and `_`,
    /// starting with a letter or `_`, at most 63 bytes (PostgreSQL's identifier limit).
    static func checkName(_ schema: String) throws(AccordError) {
        let bytes = Array(schema.utf8)
        let valid = !bytes.isEmpty && bytes.count <= 63
            && bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
            && !(bytes[0] >= 0x30 && bytes[0] <= 0x39)
        guard valid else {
            throw AccordError(
                .invalidArgument,
                "schema name must be 1-63 lower-case letters, digits or _ and not start with a digit",
                details: ["schema": String(schema.prefix(80))])
        }
    }

    /// Creates what is missing, under an advisory lock so that nodes starting together
    /// do not race on `CREATE`. Idempotent.
    static func creation(_ schema: String) -> String {
        """
        BEGIN;
        SELECT pg_advisory_xact_lock(7103952116482091);
        CREATE SCHEMA IF NOT EXISTS \(schema);
        CREATE TABLE IF NOT EXISTS \(schema).accord_meta (version bigint NOT NULL);
        INSERT INTO \(schema).accord_meta (version)
            SELECT \(version) WHERE NOT EXISTS (SELECT 1 FROM \(schema).accord_meta);
        UPDATE \(schema).accord_meta SET version = \(version) WHERE version < \(version);
        CREATE TABLE IF NOT EXISTS \(schema).accord_records (
            category bytea NOT NULL, key bytea NOT NULL, value bytea NOT NULL,
            PRIMARY KEY (category, key));
        CREATE TABLE IF NOT EXISTS \(schema).accord_logs (
            category bytea NOT NULL, key bytea NOT NULL, sequence bigint NOT NULL, value bytea NOT NULL,
            PRIMARY KEY (category, key, sequence));
        CREATE TABLE IF NOT EXISTS \(schema).accord_writers (
            id bytea PRIMARY KEY, batch bigint NOT NULL, touched timestamptz NOT NULL DEFAULT now());
        CREATE OR REPLACE FUNCTION \(schema).accord_append(c bytea, k bytea, s bigint[], v bytea[]) RETURNS void
        LANGUAGE plpgsql AS $$
        DECLARE last bigint;
        BEGIN
            SELECT max(sequence) INTO last FROM \(schema).accord_logs WHERE category = c AND key = k;
            IF last IS NOT NULL AND last >= s[1] THEN
                RAISE EXCEPTION 'log sequence % is not after %', s[1], last USING ERRCODE = '\(PostgresErrorMapping.sequenceNotAfter)';
            END IF;
            INSERT INTO \(schema).accord_logs (category, key, sequence, value)
                SELECT c, k, entry.s, entry.v FROM unnest(s, v) AS entry(s, v);
        END $$;
        CREATE TABLE IF NOT EXISTS \(schema).accord_log_heads (
            category bytea NOT NULL, key bytea NOT NULL, last bigint NOT NULL,
            PRIMARY KEY (category, key));
        CREATE OR REPLACE FUNCTION \(schema).accord_lock_heads(c bytea, ks bytea[]) RETURNS void
        LANGUAGE plpgsql AS $$
        DECLARE k bytea;
        BEGIN
            FOREACH k IN ARRAY ks LOOP
                INSERT INTO \(schema).accord_log_heads (category, key, last)
                    VALUES (c, k, (SELECT coalesce(max(sequence), 0) FROM \(schema).accord_logs
                                   WHERE category = c AND key = k))
                    ON CONFLICT (category, key) DO UPDATE SET last = accord_log_heads.last;
            END LOOP;
        END $$;
        CREATE OR REPLACE FUNCTION \(schema).accord_append_shared(c bytea, k bytea, s bigint[], v bytea[], w bytea)
        RETURNS bigint LANGUAGE plpgsql AS $$
        DECLARE head bigint; n int := cardinality(v); carried text := '';
        BEGIN
            INSERT INTO \(schema).accord_log_heads AS h (category, key, last)
                VALUES (c, k, greatest(s[1] - 1, (SELECT coalesce(max(sequence), 0) FROM \(schema).accord_logs
                                                  WHERE category = c AND key = k)) + n)
                ON CONFLICT (category, key) DO UPDATE SET last = greatest(h.last, s[1] - 1) + n
                RETURNING last INTO head;
            INSERT INTO \(schema).accord_logs (category, key, sequence, value)
                SELECT c, k, head - n + entry.i, entry.v FROM unnest(v) WITH ORDINALITY AS entry(v, i);
            -- Small entries ride along (NOTIFY payloads stop at 8000 bytes), so a node
            -- that holds everything before them needs no read.
            IF (SELECT sum(octet_length(x)) FROM unnest(v) AS x) < 3000 THEN
                carried := (SELECT string_agg(encode(x, 'hex'), ',' ORDER BY i) FROM unnest(v) WITH ORDINALITY AS e(x, i));
            END IF;
            PERFORM pg_notify('\(schema)', concat_ws(' ', 'log', encode(w, 'hex'), encode(c, 'hex'),
                encode(k, 'hex'), head - n + 1, head, carried));
            RETURN head - n + 1;
        END $$;
        CREATE OR REPLACE FUNCTION \(schema).accord_append_shared_many(
            c bytea, ks bytea[], floors bigint[], counts int[], v bytea[], w bytea) RETURNS void
        LANGUAGE plpgsql AS $$
        DECLARE i int; n int; head bigint; at int := 1; entries bytea[];
            firsts bigint[] := '{}'; starts int[] := '{}'; notices text[] := '{}'; carried text;
        BEGIN
            -- ks is sorted and holds each log once (the caller makes it so): every writer
            -- takes head rows in one order, and entries at..at+n-1 of v belong to ks[i].
            FOR i IN 1 .. cardinality(ks) LOOP
                n := counts[i];
                UPDATE \(schema).accord_log_heads SET last = greatest(last, floors[i] - 1) + n
                    WHERE category = c AND key = ks[i] RETURNING last INTO head;
                IF NOT FOUND THEN
                    INSERT INTO \(schema).accord_log_heads AS h (category, key, last)
                        VALUES (c, ks[i], greatest(floors[i] - 1, (SELECT coalesce(max(sequence), 0)
                            FROM \(schema).accord_logs WHERE category = c AND key = ks[i])) + n)
                        ON CONFLICT (category, key) DO UPDATE SET last = greatest(h.last, floors[i] - 1) + n
                        RETURNING last INTO head;
                END IF;
                firsts := firsts || (head - n + 1);
                starts := starts || at;
                entries := v[at : at + n - 1];
                carried := '';
                IF (SELECT sum(octet_length(x)) FROM unnest(entries) AS x) < 3000 THEN
                    carried := (SELECT string_agg(encode(x, 'hex'), ',' ORDER BY j) FROM unnest(entries) WITH ORDINALITY AS e(x, j));
                END IF;
                notices := notices || concat_ws(' ', 'log', encode(w, 'hex'), encode(c, 'hex'),
                    encode(ks[i], 'hex'), head - n + 1, head, carried);
                at := at + n;
            END LOOP;
            INSERT INTO \(schema).accord_logs (category, key, sequence, value)
                SELECT c, ks[g.i], firsts[g.i] + (e.j - starts[g.i]), v[e.j]
                FROM generate_series(1, cardinality(ks)) AS g(i),
                     generate_series(starts[g.i], starts[g.i] + counts[g.i] - 1) AS e(j);
            -- Rolled back with the batch; sent by accord_notify_pending after the commit.
            PERFORM set_config('accord.notices', array_to_string(notices, E'\\n'), false);
        END $$;
        CREATE OR REPLACE FUNCTION \(schema).accord_notify_pending() RETURNS void
        LANGUAGE plpgsql AS $$
        DECLARE pending text := current_setting('accord.notices', true); notice text;
        BEGIN
            IF pending IS NULL OR pending = '' THEN RETURN; END IF;
            PERFORM set_config('accord.notices', '', false);
            -- Only notices: nothing here needs the disk before the answer.
            PERFORM set_config('synchronous_commit', 'off', true);
            FOREACH notice IN ARRAY string_to_array(pending, E'\\n') LOOP
                PERFORM pg_notify('\(schema)', notice);
            END LOOP;
        END $$;
        CREATE OR REPLACE FUNCTION \(schema).accord_hint_heads(c bytea, ks bytea[]) RETURNS void
        LANGUAGE plpgsql AS $$
        DECLARE k bytea; head bigint;
        BEGIN
            -- Names no writer (16 zero bytes), so every node reads the log up to the head.
            PERFORM set_config('synchronous_commit', 'off', true);
            FOREACH k IN ARRAY ks LOOP
                SELECT last INTO head FROM \(schema).accord_log_heads WHERE category = c AND key = k;
                IF head IS NOT NULL THEN
                    PERFORM pg_notify('\(schema)', concat_ws(' ', 'log', repeat('00', 16), encode(c, 'hex'),
                        encode(k, 'hex'), head, head, ''));
                END IF;
            END LOOP;
        END $$;
        DELETE FROM \(schema).accord_writers WHERE touched < now() - interval '7 days';
        COMMIT;
        """
    }

    /// Prepared on each connection before their first use there, by name.
    static let statements: [(name: String, sql: String)] = [
        ("read", "SELECT value FROM accord_records WHERE category = $1 AND key = $2"),
        ("keys", "SELECT key FROM accord_records WHERE category = $1 ORDER BY key"),
        ("read_log", """
            SELECT sequence, value FROM accord_logs WHERE category = $1 AND key = $2 AND sequence > $3
            ORDER BY sequence LIMIT $4
            """),
        ("latest_with_value", "SELECT max(sequence) FROM accord_logs WHERE category = $1 AND key = $2 AND value = $3"),
        ("last_sequence", "SELECT max(sequence) FROM accord_logs WHERE category = $1 AND key = $2"),
        ("log_keys", "SELECT DISTINCT key FROM accord_logs WHERE category = $1 ORDER BY key"),
        ("put", """
            INSERT INTO accord_records (category, key, value) VALUES ($1, $2, $3)
            ON CONFLICT (category, key) DO UPDATE SET value = excluded.value
            """),
        ("delete", "DELETE FROM accord_records WHERE category = $1 AND key = $2"),
        ("append", "SELECT accord_append($1, $2, $3::bigint[], $4::bytea[])"),
        ("append_shared", "SELECT accord_append_shared($1, $2, $3::bigint[], $4::bytea[], $5)"),
        ("lock_heads", "SELECT accord_lock_heads($1, $2::bytea[])"),
        ("append_shared_many", "SELECT accord_append_shared_many($1, $2::bytea[], $3::bigint[], $4::bigint[]::int[], $5::bytea[], $6)"),
        ("notify_pending", "SELECT accord_notify_pending()"),
        ("hint_heads", "SELECT accord_hint_heads($1, $2::bytea[])"),
        ("truncate_log", "DELETE FROM accord_logs WHERE category = $1 AND key = $2 AND sequence <= $3"),
        ("delete_log", "DELETE FROM accord_logs WHERE category = $1 AND key = $2"),
        ("wipe_records", "DELETE FROM accord_records"),
        ("wipe_logs", "DELETE FROM accord_logs"),
        ("wipe_heads", "DELETE FROM accord_log_heads"),
        ("register_writer", "INSERT INTO accord_writers (id, batch) VALUES ($1, 0)"),
        ("forget_writer", "DELETE FROM accord_writers WHERE id = $1"),
        ("mark_batch", "UPDATE accord_writers SET batch = $2, touched = now() WHERE id = $1"),
        ("writer_batch", "SELECT batch FROM accord_writers WHERE id = $1"),
    ]
}

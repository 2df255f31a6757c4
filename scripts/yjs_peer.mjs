// Yjs replica host for recording Accord's Yjs transcripts (Tests/AccordCRDTTests/Undo/
// UndoYjsTranscriptTests.swift). It speaks the subset of scripts/pycrdt_peer.py's
// JSON-lines protocol that the undo scenarios use (new, drop, apply, update, sv, json,
// undo_*, and the edit ops), on real Yjs instead of Yrs.
//
// Never run by `make test` (Yjs cannot be installed there: no npm registry). Usage:
//   YJS_DIR=/path/to/yjs node scripts/yjs_peer.mjs
// where YJS_DIR is a Yjs 13.6 source tree whose `lib0` import resolves (a node_modules
// beside or above it). The undo manager's clock is the test's: Date.now is replaced
// before Yjs loads, since lib0 binds it once.
import * as path from 'node:path'
import * as readline from 'node:readline'
import { pathToFileURL } from 'node:url'

globalThis.accordNow = 1000
Date.now = () => globalThis.accordNow
if (!process.env.YJS_DIR) {
  process.stderr.write('YJS_DIR is not set: point it at a Yjs source tree\n')
  process.exit(2)
}
const Y = await import(pathToFileURL(path.join(process.env.YJS_DIR, 'src/index.js')).href)

const docs = new Map()
const captured = new Map()
const managers = new Map()
const hex = (bytes) => Buffer.from(bytes).toString('hex')
const unhex = (text) => new Uint8Array(Buffer.from(text, 'hex'))

function docOf (req) {
  const doc = docs.get(req.doc)
  if (!doc) throw new Error(`no such doc ${req.doc}`)
  return doc
}

function rootOf (doc, name, kind) {
  if (kind === 'text') return doc.getText(name)
  if (kind === 'map') return doc.getMap(name)
  if (kind === 'array') return doc.getArray(name)
  throw new Error(`unknown root kind ${kind}`)
}

const kindTest = { text: Y.Text, map: Y.Map, array: Y.Array }

function target (req, need) {
  const doc = docOf(req)
  const walk = req.path || []
  let type = rootOf(doc, req.root, req.root_kind || need)
  for (const step of walk) {
    if (type instanceof Y.Map && typeof step === 'string' && type.has(step)) type = type.get(step)
    else if (type instanceof Y.Array && Number.isInteger(step) && step >= 0 && step < type.length) type = type.get(step)
    else throw new Error(`path element ${JSON.stringify(step)} does not resolve`)
  }
  if (!(type instanceof kindTest[need])) throw new Error(`target is not a ${need}`)
  return [doc, type]
}

function toYjs (value) {
  if (Array.isArray(value)) return value.map(toYjs)
  if (value === null || typeof value !== 'object') return value
  if ('$type' in value) {
    if (value.$type === 'map') {
      const map = new Y.Map()
      for (const [key, item] of Object.entries(value.value || {})) map.set(key, toYjs(item))
      return map
    }
    if (value.$type === 'array') {
      const array = new Y.Array()
      array.insert(0, (value.value || []).map(toYjs))
      return array
    }
    if (value.$type === 'text') return new Y.Text(value.value || '')
    throw new Error(`unknown $type ${value.$type}`)
  }
  if ('$bytes' in value) return unhex(value.$bytes)
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toYjs(item)]))
}

// The same JSON view as pycrdt_peer.py: keys sorted, bytes as {"$bytes": hex}.
function jsonable (value) {
  if (value instanceof Y.Text) return value.toString()
  if (value instanceof Y.Array) return value.toArray().map(jsonable)
  if (value instanceof Y.Map) return sorted(Object.fromEntries([...value.entries()]))
  if (value instanceof Uint8Array) return { $bytes: hex(value) }
  if (Array.isArray(value)) return value.map(jsonable)
  if (value !== null && typeof value === 'object') return sorted(value)
  return value
}

function sorted (object) {
  return Object.fromEntries(Object.keys(object).sort().map((key) => [key, jsonable(object[key])]))
}

function edit (req, need, change) {
  const [doc, type] = target(req, need)
  const updates = captured.get(req.doc)
  updates.length = 0
  doc.transact(() => change(type))
  return { update: updates.length ? hex(updates.pop()) : '0000' }
}

function manager (req) {
  const entry = managers.get(req.doc)
  if (!entry) throw new Error(`replica ${req.doc} has no undo manager (undo_new first)`)
  return entry
}

const commands = {
  new (req) {
    const doc = new Y.Doc()
    if (req.client != null) doc.clientID = req.client
    const updates = []
    doc.on('update', (update) => updates.push(update))
    docs.set(req.doc, doc)
    captured.set(req.doc, updates)
    managers.delete(req.doc)
    return {}
  },
  drop (req) {
    docs.delete(req.doc)
    managers.delete(req.doc)
    return {}
  },
  apply (req) {
    Y.applyUpdate(docOf(req), unhex(req.update), req.origin ?? null)
    captured.get(req.doc).length = 0
    return {}
  },
  update (req) {
    const doc = docOf(req)
    return { update: hex(req.sv != null ? Y.encodeStateAsUpdate(doc, unhex(req.sv)) : Y.encodeStateAsUpdate(doc)) }
  },
  sv (req) {
    const vector = Y.encodeStateVector(docOf(req))
    const map = {}
    for (const [client, clock] of Y.decodeStateVector(vector)) map[String(client)] = clock
    return { sv: hex(vector), sv_map: map }
  },
  json (req) {
    const doc = docOf(req)
    const out = {}
    for (const [name, kind] of Object.entries(req.roots)) {
      const type = rootOf(doc, name, kind)
      out[name] = kind === 'text'
        ? { string: type.toString(), delta: type.toDelta().map((op) => [jsonable(op.insert), op.attributes ? jsonable(op.attributes) : null]) }
        : jsonable(type)
    }
    return { json: out }
  },
  undo_new (req) {
    docOf(req)
    const scopes = req.scopes.map((scope) => target({ ...scope, doc: req.doc }, scope.root_kind || 'text')[1])
    globalThis.accordNow = 1000
    managers.set(req.doc, new Y.UndoManager(scopes, { captureTimeout: req.capture_timeout ?? 500 }))
    return {}
  },
  undo_clock (req) {
    manager(req)
    globalThis.accordNow = req.now
    return {}
  },
  undo (req) { return { changed: manager(req).undo() != null } },
  redo (req) { return { changed: manager(req).redo() != null } },
  undo_clear (req) {
    manager(req).clear()
    return {}
  },
  undo_state (req) {
    const undo = manager(req)
    return { can_undo: undo.canUndo(), can_redo: undo.canRedo(), undo_depth: undo.undoStack.length, redo_depth: undo.redoStack.length }
  },
  text_insert (req) { return edit(req, 'text', (text) => text.insert(req.index, req.text, req.attrs ?? undefined)) },
  text_delete (req) { return edit(req, 'text', (text) => { if (req.length) text.delete(req.index, req.length) }) },
  text_format (req) { return edit(req, 'text', (text) => { if (req.length) text.format(req.index, req.length, req.attrs) }) },
  map_set (req) { return edit(req, 'map', (map) => map.set(req.key, toYjs(req.value))) },
  map_delete (req) { return edit(req, 'map', (map) => map.delete(req.key)) },
  array_insert (req) { return edit(req, 'array', (array) => { if (req.values.length) array.insert(req.index, req.values.map(toYjs)) }) },
  array_delete (req) { return edit(req, 'array', (array) => { if (req.length) array.delete(req.index, req.length) }) }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return
  let req
  let reply
  try {
    req = JSON.parse(line)
    if (req.cmd === 'quit') {
      process.stdout.write('{"ok":true}\n')
      process.exit(0)
    }
    const command = commands[req.cmd]
    if (!command) throw new Error(`unknown cmd ${req.cmd}`)
    reply = { ok: true, ...command(req) }
  } catch (error) {
    reply = { ok: false, error: String(error && error.message) }
  }
  if (req && typeof req === 'object' && 'id' in req) reply.id = req.id
  process.stdout.write(JSON.stringify(reply) + '\n')
})

import AccordCRDT
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Blob transfers for export and import: straight between files and the server's blob
/// routes (`docs/blobs.md`), never whole in memory.
extension ServerConnection {
    /// `GET /v1/documents/{id}/blobs`: each blob's hex hash, size and content type.
    func blobList(_ id: String) throws(AccordError) -> [(hash: String, size: Int64, contentType: String)] {
        let (status, data) = try exchange("GET", Self.documentPath(id) + "/blobs", file: nil)
        guard status == 200, case .object(let root)? = try? AnyValue(jsonText: String(decoding: data, as: UTF8.self)),
            case .array(let entries)? = root["blobs"]
        else { throw failure("list the blobs of \(id)", status, data) }
        return entries.compactMap { entry in
            guard case .object(let blob) = entry, case .string(let hash)? = blob["blobId"],
                case .int(let size)? = blob["size"], case .string(let type)? = blob["contentType"]
            else { return nil }
            return (hash, size, type)
        }
    }

    /// Downloads a blob into `file` (written beside it, moved into place when complete).
    func downloadBlob(_ id: String, _ hash: String, to file: String) throws(AccordError) {
        guard let url = URL(string: base + Self.documentPath(id) + "/blobs/" + hash) else {
            throw AccordError(.invalidArgument, "bad document id \(id)")
        }
        var request = URLRequest(url: url)
        request.timeoutInterval = 3600
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.downloadTask(with: request) { location, response, error in
            var moved: String?
            if let location, (response as? HTTPURLResponse)?.statusCode == 200 {
                try? FileManager.default.createDirectory(
                    atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try? FileManager.default.removeItem(atPath: file)
                if (try? FileManager.default.moveItem(atPath: location.path, toPath: file)) != nil { moved = file }
            }
            box.value = ((response as? HTTPURLResponse)?.statusCode ?? 0, moved == nil ? (error.map { "\($0)" } ?? "") : nil)
            done.signal()
        }.resume()
        done.wait()
        guard let (status, problem) = box.value, problem == nil else {
            throw AccordError(
                .ioError, "cannot download blob \(hash) of \(id): HTTP \(box.value?.0 ?? 0) \(box.value?.1 ?? "")",
                details: ["document": id, "blob": hash])
        }
        _ = status
    }

    /// Uploads `file` as blob `hash` of document `id` (201 new, 200 already stored).
    func uploadBlob(_ id: String, _ hash: String, from file: String, contentType: String) throws(AccordError) {
        let (status, data) = try exchange(
            "PUT", Self.documentPath(id) + "/blobs/" + hash, file: file, contentType: contentType)
        guard status == 200 || status == 201 else { throw failure("upload blob \(hash) of \(id)", status, data) }
    }

    private func exchange(
        _ method: String, _ path: String, file: String?, contentType: String? = nil
    ) throws(AccordError) -> (Int, Data) {
        guard let url = URL(string: base + path) else { throw AccordError(.invalidArgument, "bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 3600
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        let box = DataBox()
        let done = DispatchSemaphore(value: 0)
        let handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
            box.value = ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data(), error.map { "\($0)" })
            done.signal()
        }
        if let file {
            URLSession.shared.uploadTask(with: request, fromFile: URL(fileURLWithPath: file), completionHandler: handler).resume()
        } else {
            URLSession.shared.dataTask(with: request, completionHandler: handler).resume()
        }
        done.wait()
        guard let (status, data, error) = box.value, status != 0 else {
            throw AccordError(.ioError, "cannot reach \(base): \(box.value?.2 ?? "no response")", details: ["server": base])
        }
        _ = error
        return (status, data)
    }

    private func failure(_ what: String, _ status: Int, _ data: Data) -> AccordError {
        if case .object(let root)? = try? AnyValue(jsonText: String(decoding: data, as: UTF8.self)),
            case .object(let error)? = root["error"], case .string(let code)? = error["code"],
            case .string(let message)? = error["message"]
        {
            return AccordError(ErrorCode(rawValue: code), "cannot \(what): \(message)")
        }
        return AccordError(.ioError, "cannot \(what): HTTP \(status)", details: ["status": String(status)])
    }

    private final class Box: @unchecked Sendable {
        // Written once by the session's callback before the semaphore signals.
        var value: (Int, String?)?
    }

    private final class DataBox: @unchecked Sendable {
        // Written once by the session's callback before the semaphore signals.
        var value: (Int, Data, String?)?
    }
}

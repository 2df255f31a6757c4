import AccordNet

/// `GET /dashboard` and its script and style sheet, embedded in the binary (no CDN, no
/// build step): the page works offline on the operator's machine. The files hold no
/// data, so they are served to anyone; every piece of data comes from the admin-only
/// routes of ``DashboardAPI``, which the page calls with the token the operator types in.
///
/// Every response carries the same strict headers: scripts and styles only from this
/// origin (no inline script, no inline style attribute, no `eval`), no framing, no
/// plugins, no referrer, no MIME sniffing.
enum DashboardPages {
    static let path = "/dashboard"

    static let securityHeaders: [(name: String, value: String)] = [
        ("content-security-policy",
         "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("x-frame-options", "DENY"),
        ("cache-control", "no-store"),
        ("cross-origin-opener-policy", "same-origin"),
    ]

    /// Serving the files counts as the dashboard's CPU (`routes` in `cpu`).
    static func register(in routes: inout HTTPRoutes, cpu: DashboardCPU) {
        func file(_ text: String, type: String) -> HTTPRoutes.Handler {
            { _ in cpu.measure(.routes) { respond(text, type: type) } }
        }
        let page = file(DashboardAssets.html, type: "text/html; charset=utf-8")
        routes.add(.get, path, page)
        routes.add(.get, path + "/", page)
        routes.add(.get, path + "/app.css", file(DashboardAssets.css, type: "text/css; charset=utf-8"))
        routes.add(.get, path + "/app.js", file(DashboardAssets.script, type: "text/javascript; charset=utf-8"))
        routes.add(.get, path + "/views.js", file(DashboardAssets.views, type: "text/javascript; charset=utf-8"))
    }

    private static func respond(_ text: String, type: String) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: type, headers: securityHeaders, body: Array(text.utf8))
    }
}

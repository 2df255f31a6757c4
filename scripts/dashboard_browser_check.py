#!/usr/bin/env python3
"""Drives the `accord serve` dashboard in headless Chromium (Selenium + chromium-driver)
while y-websocket clients (pycrdt documents over websocket-client) edit and share
presence, and prints one JSON object: {"checks": {name: {"ok", "detail", "seconds"?}},
"screenshots": [paths]}.

Exit 0 when the checks ran (each one's outcome is in the JSON: the Swift test asserts
them); exit 1 with the reason on stderr and in {"error": ...} when they could not run
(no chromium, no chromedriver, no selenium). A missing browser is a failure, never a skip.

  python scripts/dashboard_browser_check.py --base http://127.0.0.1:8123 \
      --admin-token A --alice-token B --bob-token C --screenshots .build/dashboard-screenshots
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

XSS_TITLE = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">'
LIVE_LIMIT = 1.0  # seconds: the "shows up within 1 s"


def fail_setup(reason: str) -> None:
    print(json.dumps({"error": reason}))
    print(f"dashboard_browser_check: {reason}", file=sys.stderr)
    sys.exit(1)


try:
    import websocket  # websocket-client, a dependency of selenium
    from pycrdt import Doc, Text, create_sync_message, create_update_message, handle_sync_message
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
except ImportError as error:  # pragma: no cover - reported to the test
    fail_setup(f"missing Python module: {error} (run make deps)")


def var_uint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def var_bytes(data: bytes) -> bytes:
    return var_uint(len(data)) + data


class YClient:
    """A stock y-websocket peer on /v1/sync/{doc}: one pycrdt Doc with root text "text",
    awareness set by hand (y-protocols encoding). Used from the main thread only: pump()
    reads whatever the server sent."""

    def __init__(self, base: str, document: str, token: str, client_id: int):
        ws_base = base.replace("http://", "ws://", 1).replace("https://", "wss://", 1)
        url = f"{ws_base}/v1/sync/{urllib.parse.quote(document, safe='')}?token={urllib.parse.quote(token)}"
        self.ws = websocket.create_connection(url, timeout=5)
        self.doc = Doc()
        self.text = self.doc.get("text", type=Text)
        self.client_id = client_id
        self.clock = 0
        self.remote = False
        self.denied: list[str] = []
        self.closed = False
        self.doc.observe(self._local_update)
        self._send(create_sync_message(self.doc))

    def _local_update(self, event) -> None:
        if not self.remote:
            self._send(create_update_message(event.update))

    def _send(self, data: bytes) -> None:
        if self.closed:
            return
        try:
            self.ws.send_binary(data)
        except Exception:
            self.closed = True

    def pump(self, seconds: float = 0.05) -> None:
        deadline = time.monotonic() + seconds
        while not self.closed:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            self.ws.settimeout(remaining)
            try:
                opcode, data = self.ws.recv_data()
            except websocket.WebSocketTimeoutException:
                return
            except Exception:
                self.closed = True
                return
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                self.closed = True
                return
            if not data:
                continue
            if data[0] == 0:
                self.remote = True
                try:
                    reply = handle_sync_message(data[1:], self.doc)
                finally:
                    self.remote = False
                if reply is not None:
                    self._send(reply)
            elif data[0] == 2:
                self.denied.append(data[1:].decode("utf-8", "replace"))

    def insert(self, value: str) -> None:
        self.text += value

    def set_awareness(self, state) -> None:
        self.clock += 1
        encoded = json.dumps(state).encode() if state is not None else b"null"
        update = var_uint(1) + var_uint(self.client_id) + var_uint(self.clock) + var_bytes(encoded)
        self._send(bytes([1]) + var_bytes(update))

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:
            pass
        self.closed = True


def rest(base: str, method: str, path: str, token: str, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


class Checks:
    def __init__(self):
        self.results: dict[str, dict] = {}

    def record(self, name: str, ok: bool, detail: str, seconds: float | None = None) -> None:
        entry = {"ok": bool(ok), "detail": detail}
        if seconds is not None:
            entry["seconds"] = round(seconds, 3)
        self.results[name] = entry


def wait_for(condition, timeout: float, clients=(), step: float = 0.03):
    """Polls condition() (pumping the clients meanwhile) until it is truthy; returns
    (value, seconds waited) or (None, seconds) on timeout."""
    start = time.monotonic()
    while True:
        for client in clients:
            client.pump(0)
        try:
            value = condition()
        except WebDriverException:
            value = None
        elapsed = time.monotonic() - start
        if value:
            return value, elapsed
        if elapsed > timeout:
            return None, elapsed
        if clients:
            clients[0].pump(step)
        else:
            time.sleep(step)


def click(driver, css: str, clients=()) -> bool:
    """Clicks the element `css` names, finding it again if the live page re-rendered it
    between the find and the click (a stale element); False if it never could."""
    def attempt():
        driver.find_element(By.CSS_SELECTOR, css).click()
        return True
    clicked, _ = wait_for(attempt, 5, clients)
    return bool(clicked)


def text_of(driver, css: str) -> str:
    """The text of the first element `css` names ("" when there is none), found again
    when the live page re-renders it between the find and the read (a stale element)."""
    for _ in range(20):
        try:
            found = driver.find_elements(By.CSS_SELECTOR, css)
            return found[0].text if found else ""
        except StaleElementReferenceException:
            time.sleep(0.02)
    found = driver.find_elements(By.CSS_SELECTOR, css)
    return found[0].text if found else ""


def make_driver(chromium: str, chromedriver: str):
    options = Options()
    options.binary_location = chromium
    for flag in ("--headless=new", "--disable-gpu", "--window-size=1280,800", "--disable-dev-shm-usage",
                 "--no-first-run", "--disable-extensions"):
        options.add_argument(flag)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)


def severe(logs) -> list[str]:
    return [entry["message"] for entry in logs if entry.get("level") == "SEVERE"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--admin-token", required=True)
    parser.add_argument("--alice-token", required=True)
    parser.add_argument("--bob-token", required=True)
    parser.add_argument("--screenshots", required=True)
    args = parser.parse_args()

    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    chromedriver = shutil.which("chromedriver")
    if not chromium:
        fail_setup("chromium is not installed (apt-get install chromium; make deps installs it)")
    if not chromedriver:
        fail_setup("chromedriver is not installed (apt-get install chromium-driver; make deps installs it)")
    os.makedirs(args.screenshots, exist_ok=True)
    try:
        driver = make_driver(chromium, chromedriver)
    except WebDriverException as error:
        fail_setup(f"chromium did not start: {error.msg}")

    checks = Checks()
    shots: list[str] = []
    base = args.base
    clients: list[YClient] = []
    document = "dash-doc-1"

    def shot(name: str) -> None:
        path = os.path.join(args.screenshots, f"{name}.png")
        driver.save_screenshot(path)
        shots.append(path)

    def sign_in(token: str) -> None:
        field = driver.find_element(By.ID, "token")
        field.clear()
        field.send_keys(token)
        click(driver, "#sign-in-form button[type=submit]")

    try:
        driver.get(base + "/dashboard")
        wait_for(lambda: driver.find_element(By.ID, "sign-in").is_displayed(), 5)
        shot("sign-in-1280x800")

        # A token that is not a token, then a valid one without the admin claim.
        sign_in("not-a-token")
        garbage, _ = wait_for(lambda: "UNAUTHENTICATED" in text_of(driver, "#sign-in-error") and text_of(driver, "#sign-in-error"), 5)
        sign_in(args.alice_token)
        non_admin, _ = wait_for(lambda: "PERMISSION_DENIED" in text_of(driver, "#sign-in-error") and text_of(driver, "#sign-in-error"), 5)
        nav_hidden = not driver.find_element(By.ID, "nav").is_displayed()
        stored = driver.execute_script("return sessionStorage.getItem('accord.dashboard.token')")
        checks.record("wrong_token_refused", bool(garbage and non_admin and nav_hidden and stored is None),
                      f"garbage: {garbage!r}; non-admin: {non_admin!r}; nav hidden: {nav_hidden}; token kept: {stored is not None}")
        shot("sign-in-refused-1280x800")
        driver.get_log("browser")  # the refused calls log their 401 and 403: expected, dropped here

        sign_in(args.admin_token)
        charts, _ = wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, "figure.chart")) >= 8, 5)
        live, _ = wait_for(lambda: text_of(driver, "#live-state") == "live", 5)
        in_url = args.admin_token in driver.current_url
        stored = driver.execute_script("return sessionStorage.getItem('accord.dashboard.token')")
        checks.record("sign_in", bool(charts and live and not in_url and stored == args.admin_token),
                      f"charts: {bool(charts)}, live: {bool(live)}, token in URL: {in_url}, in sessionStorage: {stored == args.admin_token}")
        time.sleep(1.2)  # a sample or two on the charts
        shot("overview-1280x800")

        driver.get(base + "/dashboard#/documents")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#doc-table table"), 5)
        alice = YClient(base, document, args.alice_token, 1001)
        clients.append(alice)
        row, seconds = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, f'tr[data-id="{document}"]'), 5, clients)
        checks.record("document_appears_in_table", bool(row) and seconds <= LIVE_LIMIT,
                      f"row {'appeared' if row else 'missing'} after {seconds:.3f}s", seconds)
        alice.insert("hello dashboard")
        alice.pump(0.2)
        shot("documents-1280x800")

        click(driver, f'tr[data-id="{document}"] a', clients)
        shown, seconds = wait_for(lambda: "hello dashboard" in text_of(driver, "#content-tree"), 5, clients)
        checks.record("document_shows_text", bool(shown), f"content tree: {text_of(driver, '#content-tree')!r}", seconds)

        alice.insert(" + live edit")
        shown, seconds = wait_for(lambda: "hello dashboard + live edit" in text_of(driver, "#content-tree"), 5, clients)
        checks.record("edit_shows_within_1s", bool(shown) and seconds <= LIVE_LIMIT,
                      f"{'shown' if shown else 'not shown'} after {seconds:.3f}s", seconds)

        # Bob gets read-write from alice (the owner), joins, and shares presence.
        status, body = rest(base, "PUT", f"/v1/documents/{document}/permissions", args.alice_token,
                            {"user": "bob", "role": "read-write"})
        bob = YClient(base, document, args.bob_token, 2002)
        clients.append(bob)
        bob.pump(0.3)
        bob.set_awareness({"user": {"name": "Bob Presence"}})
        appeared, seconds_in = wait_for(lambda: "Bob Presence" in text_of(driver, "#clients"), 5, clients)
        shot("document-1280x800")
        bob.set_awareness(None)
        gone, seconds_out = wait_for(lambda: "Bob Presence" not in text_of(driver, "#clients"), 5, clients)
        checks.record("awareness_appears_and_disappears", bool(appeared and gone),
                      f"grant: {status}; appeared after {seconds_in:.3f}s, disappeared after {seconds_out:.3f}s")

        # Bob's write lands while he holds the grant; after the page revokes it, it does not.
        bob.insert(" bob-before")
        landed, _ = wait_for(lambda: "bob-before" in text_of(driver, "#content-tree"), 5, clients)
        click(driver, 'button[aria-label="Revoke bob"]', clients)
        revoked, _ = wait_for(lambda: "done" in text_of(driver, "#action-note") and "bob" not in text_of(driver, "#members"), 5, clients)
        bob.pump(0.3)
        bob.insert(" BOB-AFTER-REVOKE")
        bob.pump(1.0)
        alice.pump(0.2)
        _, page = rest(base, "GET", f"/v1/admin/dashboard/document?id={document}", args.admin_token)
        stored_text = json.dumps(page)
        refused = "BOB-AFTER-REVOKE" not in stored_text and "BOB-AFTER-REVOKE" not in text_of(driver, "#content-tree")
        checks.record("revoke_refuses_next_write", bool(landed and revoked and refused),
                      f"write before revoke landed: {bool(landed)}; revoked in page: {bool(revoked)}; "
                      f"write after revoke refused: {refused}; bob was told: {bob.denied}; bob's socket closed: {bob.closed}")

        # A title with markup is shown as text and never runs.
        status, _ = rest(base, "PATCH", f"/v1/documents/{document}", args.alice_token, {"title": XSS_TITLE})
        shown, _ = wait_for(lambda: XSS_TITLE in text_of(driver, "#doc-title"), 5, clients)
        driver.get(base + "/dashboard#/documents")
        cell, _ = wait_for(lambda: text_of(driver, f'tr[data-id="{document}"] td.doc-title') == XSS_TITLE, 5, clients)
        images = len(driver.find_elements(By.CSS_SELECTOR, "#view img"))
        ran = driver.execute_script("return window.__xss === undefined ? null : window.__xss")
        checks.record("title_markup_shown_as_text", bool(status == 200 and shown and cell and images == 0 and ran is None),
                      f"patch: {status}; in page heading: {bool(shown)}; in table cell: {bool(cell)}; img elements: {images}; window.__xss: {ran!r}")

        # A blob the document references downloads from its page (through the admin route).
        blob = b"dashboard blob " * 1000
        blob_hash = hashlib.sha256(blob).hexdigest()
        upload = urllib.request.Request(f"{base}/v1/documents/{document}/blobs/{blob_hash}", data=blob, method="PUT")
        upload.add_header("Authorization", f"Bearer {args.alice_token}")
        upload.add_header("Content-Type", "application/pdf")
        with urllib.request.urlopen(upload, timeout=10) as response:
            uploaded = response.status
        driver.get(f"{base}/dashboard#/document/{document}")
        listed, _ = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, f'#blobs li[data-hash="{blob_hash}"]'), 5, clients)
        click(driver, f'#blobs li[data-hash="{blob_hash}"] button.blob-download', clients)
        downloaded, _ = wait_for(lambda: "Download blob: done" in text_of(driver, "#action-note"), 5, clients)
        checks.record("blob_downloads", bool(uploaded == 201 and listed and downloaded),
                      f"upload: {uploaded}; listed: {bool(listed)}; note: {text_of(driver, '#action-note')!r}")

        # Alice's collection holding the document is on the People page, with her.
        status_collection, _ = rest(base, "POST", "/v1/collections", args.alice_token, {"id": "dash-col", "title": "Dash team"})
        status_member, _ = rest(base, "PUT", "/v1/collections/dash-col/documents", args.alice_token, {"document": document})
        driver.get(base + "/dashboard#/people")
        people, _ = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, 'tr[data-user="alice"]'), 5, clients)
        checks.record("people_lists_connected_user", bool(people), "alice listed" if people else "alice missing")
        collection_row = '#collections tr[data-collection="dash-col"]'
        collection, _ = wait_for(lambda: document in text_of(driver, collection_row)
                                 and "dash-col" in text_of(driver, 'tr[data-user="alice"]'), 5, clients)
        checks.record("people_lists_collections", bool(status_collection == 201 and status_member == 200 and collection),
                      f"create: {status_collection}; add document: {status_member}; row: {text_of(driver, collection_row)!r}")
        shot("people-1280x800")

        # Everything so far ran without a console error.
        errors = severe(driver.get_log("browser"))
        checks.record("no_console_errors", not errors, "; ".join(errors)[:2000] or "none")

        # The CSP refuses an inline script even when one is injected into the page.
        driver.execute_script(
            "const s = document.createElement('script'); s.textContent = 'window.__inline = 1'; document.body.append(s);")
        time.sleep(0.2)
        inline = driver.execute_script("return window.__inline === undefined ? null : window.__inline")
        violations = [m for m in severe(driver.get_log("browser")) if "Content Security Policy" in m]
        checks.record("csp_blocks_inline_script", inline is None and bool(violations),
                      f"window.__inline: {inline!r}; CSP reports: {len(violations)}")

        # The same pages at a phone's size.
        driver.set_window_size(390, 844)
        overflowing: list[str] = []
        for name, route, ready in (("overview", "#/overview", "figure.chart"), ("documents", "#/documents", "#doc-table table"),
                                   ("document", f"#/document/{document}", "#content-tree"), ("people", "#/people", "table")):
            driver.get(f"{base}/dashboard{route}")
            wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ready), 5, clients)
            shot(f"{name}-390x844")
            if not driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1"):
                overflowing.append(name)
        checks.record("phone_viewport_fits", not overflowing, f"pages wider than a 390px phone: {overflowing or 'none'}")
    finally:
        for client in clients:
            client.close()
        driver.quit()

    print(json.dumps({"checks": checks.results, "screenshots": shots}))


if __name__ == "__main__":
    main()

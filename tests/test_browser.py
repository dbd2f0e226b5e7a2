"""End to end in a real browser: `streamlit run app.py` driven by headless Chromium over CDP.

Types the canonical question into the chat input, waits for the answer, the Cypher and the
graph, and saves a screenshot to tests/artifacts/ask.png. Chromium is required: a missing
browser fails this test (install it with `apt-get install -y chromium`).
"""
from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
CANONICAL = "Which high-spend suppliers lack a termination clause?"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars", "--remote-allow-origins=*",
                  "--window-size=1680,1500"]
VIEWPORT = (1680, 1500)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chromium_binary() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("Chromium is not installed: the browser test needs it (Debian: `apt-get install -y chromium`).")


def wait_for(predicate, timeout: float, what: str, interval: float = 0.25):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except AssertionError:
            raise
        except Exception as exc:  # noqa: BLE001 - keep polling until the deadline
            last = exc
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")


def http_get(url: str, timeout: float = 2.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 - localhost only
        return resp.read().decode("utf-8", "replace")


class CDP:
    """The few DevTools-protocol calls the test needs, over one page target's websocket."""

    def __init__(self, ws_url: str):
        from websockets.sync.client import connect

        self.ws = connect(ws_url, max_size=64 * 1024 * 1024, open_timeout=10)
        self._id = 0

    def send(self, method: str, timeout: float = 30, **params) -> dict:
        self._id += 1
        msg_id = self._id
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            raw = self.ws.recv(timeout=max(0.1, deadline - time.monotonic()))
            msg = json.loads(raw)
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def eval(self, expression: str):
        res = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(res["exceptionDetails"].get("text"))
        return res.get("result", {}).get("value")

    def close(self) -> None:
        self.ws.close()


def _stop(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


@pytest.fixture(scope="module")
def demo(db):
    from conftest import load_corpus

    assert load_corpus(db, ROOT / "data" / "demo").ok
    return db


@contextlib.contextmanager
def run_streamlit(log: Path, script: str = "app.py", as_make_run: bool = False, process: list | None = None):
    """`streamlit run app.py` (or another script) on a free port (a fresh server each time), stopped afterwards.
    `as_make_run`: with the project's .streamlit/config.toml alone, as `make run` starts it (only the port
    differs); else the watcher is switched off on the command line too. `process` receives the Popen."""
    port = free_port()
    env = dict(os.environ)  # the test database settings set by conftest travel along
    env["PYTHONUNBUFFERED"] = "1"
    args = [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port)]
    if not as_make_run:
        args += ["--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
                 "--server.fileWatcherType", "none"]
    with log.open("wb") as out:
        proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    if process is not None:
        process.append(proc)
    try:
        wait_for(lambda: proc.poll() is None and http_get(f"http://127.0.0.1:{port}/_stcore/health") == "ok",
                 60, "streamlit to serve")
        yield f"http://127.0.0.1:{port}/"
    finally:
        _stop(proc)


@pytest.fixture()
def streamlit_server(demo, tmp_path):
    log = tmp_path / "server.log"
    with run_streamlit(log) as url:
        yield url, log


@pytest.fixture()
def browser(tmp_path):
    binary = chromium_binary()
    port = free_port()
    profile = tempfile.mkdtemp(prefix="cg-chromium-", dir=tmp_path)
    proc = subprocess.Popen([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                             f"--remote-debugging-port={port}", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cdp = None
    try:
        targets = wait_for(lambda: [t for t in json.loads(http_get(f"http://127.0.0.1:{port}/json/list"))
                                    if t.get("type") == "page"], 30, "chromium's DevTools endpoint")
        cdp = CDP(targets[0]["webSocketDebuggerUrl"])
        cdp.send("Page.enable")
        cdp.send("Runtime.enable")
        cdp.send("Emulation.setDeviceMetricsOverride", width=VIEWPORT[0], height=VIEWPORT[1], deviceScaleFactor=1,
                 mobile=False)
        yield cdp
    finally:
        if cdp is not None:
            cdp.close()
        _stop(proc)


TEXTAREA = "document.querySelector('textarea[data-testid=\"stChatInputTextArea\"]')"


def test_an_idle_server_started_as_make_run_stays_idle(demo, tmp_path, browser):
    """With a browser session open and nobody using it, the server takes next to no CPU and writes no log
    lines (a file watcher over the repository once spun a core and logged 600 lines in 20 s)."""
    import psutil

    log = tmp_path / "make-run.log"
    procs: list = []
    with run_streamlit(log, as_make_run=True, process=procs) as url:
        browser.send("Page.navigate", url=url)
        wait_for(lambda: browser.eval("(document.querySelector('h1') || {}).innerText || ''"), 90,
                 "the Ask page to render")
        server = psutil.Process(procs[0].pid)

        def settled():   # the warm start loads the models in the background first: wait for it to end
            before = sum(server.cpu_times()[:2])
            time.sleep(2)
            return sum(server.cpu_times()[:2]) - before < 0.2
        # with the watcher on, this never happens (checked: it times out with fileWatcherType = "auto")
        wait_for(settled, 180, "the server to go idle after its warm start (a file watcher spinning?)", interval=0)
        lines = len(log.read_text(encoding="utf-8", errors="replace").splitlines())
        cpu = sum(server.cpu_times()[:2])
        time.sleep(20)
        used = sum(server.cpu_times()[:2]) - cpu
        grown = len(log.read_text(encoding="utf-8", errors="replace").splitlines()) - lines
    assert used < 0.2 * 20, f"an idle server used {used:.1f} s of CPU in 20 s"
    assert grown <= 2, f"an idle server wrote {grown} log lines in 20 s: {log.read_text()[-2000:]}"


def test_ask_in_a_real_browser(streamlit_server, browser):
    from core import service

    url, log = streamlit_server
    expected = service.ask(CANONICAL, log=False)
    assert expected.evidence, "the demo graph must have gaps to show"

    browser.send("Page.navigate", url=url)

    def loaded():
        crash = browser.eval("(document.querySelector('[data-testid=\"stException\"]') || {}).innerText || ''")
        if crash:
            raise AssertionError(f"the page shows an exception: {crash[:2000]}")
        return browser.eval(f"!!{TEXTAREA}")

    try:
        wait_for(loaded, 120, "the chat input")
    except AssertionError as exc:
        raise AssertionError(f"page did not load ({exc}); server log:\n" + log.read_text(errors="replace")[-3000:])
    # type the question like a user: focus, insert text, press Enter
    browser.eval(f"{TEXTAREA}.focus()")
    browser.send("Input.insertText", text=CANONICAL)
    wait_for(lambda: browser.eval(f"{TEXTAREA}.value") == CANONICAL, 10, "the typed question")
    for kind in ("keyDown", "keyUp"):
        browser.send("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", windowsVirtualKeyCode=13,
                     nativeVirtualKeyCode=13, **({"text": "\r"} if kind == "keyDown" else {}))

    def page_text() -> str:
        return browser.eval("document.body.innerText") or ""

    first_company = expected.evidence[0].company
    text = wait_for(lambda: (t := page_text()) and "co.clause_types" in t and "Evidence (" in t and first_company in t
                    and t, 180, "the answer and its Cypher")
    # the graph iframe holds a drawn vis-network canvas
    wait_for(lambda: browser.eval(
        "Array.from(document.querySelectorAll('iframe')).some(f => { try { "
        "return !!f.contentDocument.querySelector('#mynetwork canvas') } catch (e) { return false } })"),
        60, "the subgraph canvas")
    _settle(browser, "the answer and its graph")
    time.sleep(2.5)  # let the physics layout settle for the screenshot
    text = page_text()
    # labels as drawn, after the graph was fitted into its frame: font size times the zoom scale
    from core.ui.display import EDGE_FONT_PX, NODE_FONT_PX

    scale = _graph_view(browser)["scale"]
    assert scale and scale * NODE_FONT_PX >= 11 and scale * EDGE_FONT_PX >= 8, (scale, len(expected.evidence))

    # what the analyst sees: the answer (with its citations), the Cypher, the evidence
    assert "Answer" in text and "Cypher that ran" in text and "Subgraph" in text
    code = browser.eval("Array.from(document.querySelectorAll('[data-testid=\"stCode\"]')).map(e => e.innerText)"
                        ".join('\\n')")
    assert "co.clause_types" in code and "$types" in code, code[:500]
    answer_head = expected.answer.split(":")[0]
    assert answer_head in text, (answer_head, text[:2000])
    for ev in expected.evidence:
        assert ev.company in text and f"[{ev.ref}]" in text
    assert not browser.eval("!!document.querySelector('[data-testid=\"stException\"]')"), "a traceback is shown"

    # the four panels side by side: answer over evidence on the left, Cypher over graph on the right,
    # all starting within the first screen
    boxes = browser.eval("""(() => {
        const find = (txt) => Array.from(document.querySelectorAll('h4')).find(h => h.innerText.trim().startsWith(txt));
        const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect(); return [r.left, r.top]; };
        return {answer: box(find('Answer')), cypher: box(find('Cypher that ran')),
                graph: box(find('Subgraph')), evidence: box(find('Evidence'))};
    })()""")
    assert all(boxes.values()), boxes
    assert boxes["cypher"][0] > boxes["answer"][0] + 300 and abs(boxes["cypher"][1] - boxes["answer"][1]) < 5
    assert abs(boxes["graph"][0] - boxes["cypher"][0]) < 5 and abs(boxes["evidence"][0] - boxes["answer"][0]) < 5
    assert max(b[1] for b in boxes.values()) - min(b[1] for b in boxes.values()) < VIEWPORT[1] - 500, boxes

    # screenshot, scrolled so the answer block is at the top of the viewport
    browser.eval("(() => { const h = Array.from(document.querySelectorAll('h4')).find(h => "
                 "h.innerText.trim() === 'Answer'); const m = h.closest('[data-testid=\"stChatMessage\"]'); "
                 "(m || h).scrollIntoView({block: 'start'}); })()")
    time.sleep(1.0)
    shot = browser.send("Page.captureScreenshot", format="png", captureBeyondViewport=False)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    out = ARTIFACTS / "ask.png"
    out.write_bytes(base64.b64decode(shot["data"]))
    assert out.stat().st_size > 20_000


def test_first_visit_to_a_page_url_is_routed_by_app(streamlit_server, browser):
    """A fresh server whose first request names a page must still route through app.py
    (Streamlit would otherwise run pages/gaps.py directly and list every file, Data included)."""
    url, log = streamlit_server
    browser.send("Page.navigate", url=url + "gaps")
    wait_for(lambda: browser.eval("document.querySelector('h1') && document.querySelector('h1').innerText"
                                  " === 'Compliance gaps'"), 120, "the gaps page")
    wait_for(lambda: browser.eval("!!document.querySelector('.js-plotly-plot .heatmaplayer, .js-plotly-plot')"),
             60, "the heatmap")
    nav = wait_for(lambda: browser.eval(
        "(document.querySelector('[data-testid=\"stSidebarNav\"]') || {}).innerText || ''"), 30, "the navigation")
    items = [line.strip() for line in nav.splitlines() if line.strip()]
    assert "Compliance gaps" in items and "Ask" in items and "app" not in items, items
    assert not browser.eval("!!document.querySelector('[data-testid=\"stException\"]')")


# ---------------------------------------------------------------------------------------
# issue 18: a laptop screen and a wide one, follow-ups, long input, every page's screenshot

SCREENS = ((1280, 800), (1680, 1050))
FIRST = "Which suppliers in Germany have a data protection clause?"
FOLLOW = "and their liability clauses?"
EMAIL = ("Hi team, following up on the audit meeting. Our auditor mentioned that an incident with personal data "
         "happened last spring, and legal reviewed the liability caps for the logistics vendors. Procurement will "
         "send the renewal calendar next week, please keep it handy for the board pack that is due at the end of "
         "the month. Thanks for all the hard work on this so far. Which suppliers lack a termination clause? "
         "Best regards, Ana")


def _screen(browser, width: int, height: int) -> None:
    browser.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)


def _ask(browser, question: str, answers_before: int) -> str:
    """Type a question into the chat input and wait until one more answer is on the page."""
    wait_for(lambda: browser.eval(f"!!{TEXTAREA}"), 120, "the chat input")
    browser.eval(f"{TEXTAREA}.focus()")
    browser.send("Input.insertText", text=question)
    wait_for(lambda: browser.eval(f"{TEXTAREA}.value") == question, 10, "the typed question")
    for kind in ("keyDown", "keyUp"):
        browser.send("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", windowsVirtualKeyCode=13,
                     nativeVirtualKeyCode=13, **({"text": "\r"} if kind == "keyDown" else {}))
    count = "document.body.innerText.split('Answered in ').length - 1"
    wait_for(lambda: browser.eval(count) > answers_before and "Answering" not in browser.eval("document.body.innerText"),
             240, f"the answer to {question[:40]!r}")
    time.sleep(1.0)
    assert not browser.eval("!!document.querySelector('[data-testid=\"stException\"]')"), "a traceback is shown"
    return browser.eval("document.body.innerText")


def _latest_answer(browser) -> str:
    """The text of the newest assistant message (the one with the Answer heading)."""
    return browser.eval("""(() => { const ms = Array.from(document.querySelectorAll('[data-testid="stChatMessage"]'));
        return ms.length ? ms[ms.length - 1].innerText : ''; })()""") or ""


SETTLED = """(() => {
    const frames = Array.from(document.querySelectorAll('iframe'));
    const drawn = frames.every(f => { try { const d = f.contentDocument;
        return d && d.readyState === 'complete' && (!d.querySelector('#mynetwork') || !!d.querySelector('#mynetwork canvas')); }
        catch (e) { return true; } });
    const plots = Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]')).every(p => !!p.querySelector('.main-svg'));
    const busy = document.querySelectorAll('[data-testid="stSkeleton"], [data-testid="stSpinner"]').length;
    // Streamlit marks its root with the script's run state: done means the page has all its elements
    const app = document.querySelector('[data-testid="stApp"]');
    const done = !!app && app.getAttribute('data-test-script-state') === 'notRunning';
    return drawn && plots && !busy && done ? document.body.innerText.length + '/' + frames.length : '';
})()"""

# Text the reader cannot see whole: an element (or one of its near ancestors) that clips horizontally
# and holds more than it shows (ellipsis, hidden overflow), and combobox values wider than their box.
# Visually hidden helpers (1-2 px wide, e.g. "skip to content") are not text on the screen.
CUT_OFF = """(() => {
    const out = []; const seen = new Set();
    const report = (el, text) => { if (!seen.has(el)) { seen.add(el);
        out.push({text: text.slice(0, 80), where: (el.closest('[data-testid]') || {dataset: {}}).dataset.testid || el.tagName,
                  shown: el.clientWidth, needed: el.scrollWidth}); } };
    for (const el of document.querySelectorAll('body *')) {
        const own = Array.from(el.childNodes).filter(n => n.nodeType === 3 && n.textContent.trim())
            .map(n => n.textContent.trim()).join(' ');
        if (!own) continue;
        const r = el.getBoundingClientRect();
        if (r.width <= 2 || r.height <= 2) continue;
        let a = el;
        for (let i = 0; i < 6 && a && a !== document.body; i++, a = a.parentElement) {
            const cs = getComputedStyle(a);
            const clips = ['hidden', 'clip'].includes(cs.overflowX) || cs.textOverflow === 'ellipsis';
            if (a.clientWidth > 2 && clips && a.scrollWidth > a.clientWidth + 1) { report(a, own); break; }
        }
    }
    for (const el of document.querySelectorAll('input[role="combobox"], input[readonly]')) {
        if (el.value && el.clientWidth > 2 && el.scrollWidth > el.clientWidth + 1) report(el, el.value);
    }
    return out;
})()"""


# Controls drawn on top of one another (a toolbar over a header, a button over a field): any two
# visible controls whose boxes intersect, neither inside the other.
OVERLAPS = """(() => {
    const sel = 'button, input:not([type="range"]), textarea, [role="slider"], [role="tab"], .modebar';
    const boxes = Array.from(document.querySelectorAll(sel)).filter(el => {
        const r = el.getBoundingClientRect(); const cs = getComputedStyle(el);
        return r.width > 2 && r.height > 2 && cs.visibility !== 'hidden' && cs.display !== 'none'
            // Streamlit's own hover toolbars (shown above an element only on hover) are not page controls
            && !el.closest('[data-testid="stSidebarCollapsedControl"], [data-testid="stToolbar"], '
                           + '[data-testid="stElementToolbar"]'); })
        .map(el => ({el, r: el.getBoundingClientRect()}));
    const out = [];
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
        const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
        const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
        if (w > 2 && h > 2) out.push([a.el.innerText || a.el.getAttribute('aria-label') || a.el.tagName,
                                       b.el.innerText || b.el.getAttribute('aria-label') || b.el.tagName]);
    }
    return out;
})()"""


def _settle(browser, what: str) -> None:
    """Wait until frames and charts are drawn and the page text stops changing, so a screenshot shows
    the page as a reader sees it rather than half-rendered."""
    state = {"last": None}

    def stable():
        now = browser.eval(SETTLED)
        same = bool(now) and now == state["last"]
        state["last"] = now
        return same

    wait_for(stable, 120, f"{what} to finish drawing", interval=1.0)


GRAPH_VIEW = """Array.from(document.querySelectorAll('iframe')).map(f => { try { const n = f.contentWindow.network;
    if (!n || !f.contentWindow.graphReady) return null;
    return {nodes: n.body.data.nodes.length, scale: n.getScale(),
            labelled: n.body.data.nodes.get().filter(x => (x.label || '').trim()).length}; }
    catch (e) { return null; } }).filter(x => x)[0] || null"""


def _graph_view(browser) -> dict:
    """The drawn graph once its final view is set: node count, zoom scale, labelled nodes."""
    return wait_for(lambda: browser.eval(GRAPH_VIEW), 60, "the graph's final view")


def _cut_off(browser) -> list:
    return browser.eval(CUT_OFF) or []


def _shot(browser, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = browser.send("Page.captureScreenshot", format="png", captureBeyondViewport=False)
    (ARTIFACTS / name).write_bytes(base64.b64decode(shot["data"]))
    assert (ARTIFACTS / name).stat().st_size > 10_000


def test_follow_up_and_long_input_on_a_laptop_and_a_wide_screen(streamlit_server, browser):
    from core import service

    url, log = streamlit_server
    sid = "browser-expected"
    service.sessions().reset(sid)
    service.ask(FIRST, session=sid, log=False)
    expected = service.ask(FOLLOW, session=sid, log=False)
    service.sessions().reset(sid)
    named = expected.plan.params.companies
    assert len(named) >= 2, named
    for width, height in SCREENS:
        _screen(browser, width, height)
        browser.send("Page.navigate", url=url)   # a fresh page: a new conversation
        _ask(browser, FIRST, 0)
        _ask(browser, FOLLOW, 1)
        latest = _latest_answer(browser)
        # every company the follow-up inherited is accounted for, found or not
        for company in named:
            assert company in latest, (company, latest[:1500])
        assert "Inherited from the conversation" in latest and "'s agreement has" not in latest
        # the status belongs to its own answer: inside the newest message, not above the history
        assert "Answered in" in latest and "other" in latest
        # the Cypher is wrapped inside the viewport; the copy button comes with st.code
        code = browser.eval("""(() => { const cs = Array.from(document.querySelectorAll('[data-testid="stCode"]'));
            const c = cs[cs.length - 1]; const pre = c.querySelector('pre'); const r = c.getBoundingClientRect();
            return {right: r.right, width: window.innerWidth, ws: getComputedStyle(pre.querySelector('code') || pre).whiteSpace,
                    overflow: pre.scrollWidth - pre.clientWidth}; })()""")
        assert code["right"] <= code["width"] and code["overflow"] <= 1, code
        # answer, Cypher and graph start within one screen of each other
        tops = browser.eval("""(() => { const hs = Array.from(document.querySelectorAll('h4'));
            const last = (t) => hs.filter(h => h.innerText.trim().startsWith(t)).pop();
            return ['Answer', 'Cypher that ran', 'Subgraph'].map(t => last(t).getBoundingClientRect().top); })()""")
        assert max(tops) - min(tops) < height - 150, tops
        # the example buttons are not cut off: every label fits its button
        clipped = browser.eval("""Array.from(document.querySelectorAll('.st-key-ask_examples button'))
            .filter(b => b.scrollWidth > b.clientWidth + 1).length""")
        assert clipped == 0
        browser.eval("(() => { const hs = Array.from(document.querySelectorAll('h4')).filter(h => "
                     "h.innerText.trim() === 'Answer'); hs[hs.length - 1].scrollIntoView({block: 'start'}); })()")
        _settle(browser, "the follow-up answer")
        assert _cut_off(browser) == [], _cut_off(browser)
        _shot(browser, f"ask-follow-up-{width}x{height}.png")

        # a pasted e-mail: planned on its question, shown which part was used, never echoed
        _ask(browser, EMAIL, 2)
        latest = _latest_answer(browser)
        assert "Question used" in latest and "Which suppliers lack a termination clause?" in latest
        answer_part = latest.split("Answer", 1)[-1]
        assert "Procurement will send" not in answer_part and "Termination" in answer_part
        _settle(browser, "the long-input answer")
        assert _cut_off(browser) == [], _cut_off(browser)
        _shot(browser, f"ask-long-input-{width}x{height}.png")


def test_screenshots_of_every_page_on_a_laptop(streamlit_server, browser):
    url, log = streamlit_server
    _screen(browser, 1280, 800)
    for path, heading in (("", "Ask the contract graph"), ("explore", "Explore the graph"),
                          ("gaps", "Compliance gaps"), ("renewals", "Renewals"), ("data", None), ("quality", None),
                          ("query_log", None)):
        browser.send("Page.navigate", url=url + path)
        wait_for(lambda: browser.eval("(document.querySelector('h1') || {}).innerText || ''"), 120, f"page {path!r}")
        if heading:
            wait_for(lambda: browser.eval("document.querySelector('h1').innerText") == heading, 60, heading)
        wait_for(lambda: "Running" not in (browser.eval(
            "(document.querySelector('[data-testid=\"stStatusWidget\"]') || {}).innerText || ''")), 120, "the run")
        _settle(browser, f"page {path!r}")
        assert not browser.eval("!!document.querySelector('[data-testid=\"stException\"]')"), path
        # nothing wider than the screen, and no text cut off inside its box (ellipsis, clipped values)
        assert browser.eval("document.documentElement.scrollWidth <= window.innerWidth + 1"), path
        assert _cut_off(browser) == [], (path, _cut_off(browser))
        assert browser.eval(OVERLAPS) == [], (path, browser.eval(OVERLAPS))
        if path == "quality":   # a linear latency axis, every legend above its plot
            axes = browser.eval("Array.from(document.querySelectorAll('.js-plotly-plot'))"
                                ".map(p => [(p.layout.xaxis || {}).type, (p.layout.yaxis || {}).type])")
            assert axes and all("log" not in pair for pair in axes), axes
        if path == "gaps":
            # the heatmap counts whole clauses: integer ticks only, and no toolbar over its headers
            ticks = browser.eval("Array.from(document.querySelectorAll('.js-plotly-plot .colorbar text'))"
                                 ".map(t => t.textContent.trim())")
            numbers = [t for t in ticks if t.replace(".", "", 1).replace(",", "").isdigit()]
            assert numbers and all("." not in t for t in numbers), ticks
            assert not browser.eval("!!document.querySelector('.js-plotly-plot .modebar')")
        _shot(browser, f"page-{path or 'ask'}-1280x800.png")
    # Explore at depth 3 draws at most the node cap, labelled, with "show more"
    browser.send("Page.navigate", url=url + "explore")
    wait_for(lambda: "Show labels" in (browser.eval("document.body.innerText") or ""), 120, "the explore page")
    assert browser.eval("!!document.querySelector('.st-key-explore_show_labels input:checked')")
    from core.ui.display import EXPLORE_NODE_CAP, NODE_FONT_PX

    _settle(browser, "the explore page")
    wait_for(lambda: browser.eval("(() => { const b = Array.from(document.querySelectorAll('button'))"
                                  ".find(b => b.innerText.trim() === 'Clause type'); if (b) b.click(); return !!b; })()"),
             30, "the 'Clause type' start button")
    wait_for(lambda: "Neighbourhood of clause type" in (browser.eval("document.body.innerText") or ""), 60,
             "a clause type as the start")
    _settle(browser, "the clause type's neighbourhood")
    browser.eval("document.querySelector('[data-testid=\"stSlider\"] input[type=\"range\"]').focus()")
    for kind in ("keyDown", "keyUp"):
        browser.send("Input.dispatchKeyEvent", type=kind, key="ArrowRight", code="ArrowRight", windowsVirtualKeyCode=39)
    wait_for(lambda: browser.eval("document.querySelector('[data-testid=\"stSlider\"] input[type=\"range\"]').value")
             == "3", 30, "depth 3")
    _settle(browser, "the depth-3 graph")
    total = int(re.search(r"Neighbourhood of clause type .*? — (\d+) nodes", browser.eval("document.body.innerText")).group(1))
    drawn = _graph_view(browser)
    # at most the cap, every node labelled, the labels legible as drawn, and a way to the rest
    assert drawn["nodes"] == min(total, EXPLORE_NODE_CAP) and drawn["labelled"] == drawn["nodes"], (drawn, total)
    if total > EXPLORE_NODE_CAP:
        assert f"Show {min(total - EXPLORE_NODE_CAP, EXPLORE_NODE_CAP)} more" in browser.eval("document.body.innerText")
    assert drawn["scale"] * NODE_FONT_PX >= 9.5, drawn
    assert _cut_off(browser) == [], _cut_off(browser)
    _shot(browser, "page-explore-depth3-1280x800.png")


def _open(browser, url: str, heading: str) -> None:
    """Navigate to a page and wait until its script has run and everything on it is drawn."""
    browser.send("Page.navigate", url=url)
    wait_for(lambda: browser.eval("(document.querySelector('h1') || {}).innerText || ''") == heading, 120, heading)
    wait_for(lambda: "Running" not in (browser.eval(
        "(document.querySelector('[data-testid=\"stStatusWidget\"]') || {}).innerText || ''")), 120, "the run")
    _settle(browser, heading)
    assert not browser.eval("!!document.querySelector('[data-testid=\"stException\"]')"), heading


def _laid_out(browser, what: str) -> None:
    """Nothing wider than the screen, no text cut off, no control over another."""
    assert browser.eval("document.documentElement.scrollWidth <= window.innerWidth + 1"), what
    assert _cut_off(browser) == [], (what, _cut_off(browser))
    assert browser.eval(OVERLAPS) == [], (what, browser.eval(OVERLAPS))


def _scroll_to(browser, selector_js: str, what: str) -> None:
    assert browser.eval(f"(() => {{ const el = {selector_js}; if (el) el.scrollIntoView({{block: 'start'}}); "
                        "return !!el; })()"), what
    time.sleep(0.5)
    _settle(browser, what)


def _heading(text: str) -> str:
    return (f"Array.from(document.querySelectorAll('h1, h2, h3, h4')).find(h => h.innerText.trim() === {text!r})")


def _give_dates(service) -> list:
    """A reviewer's dates on two agreements, relative to today, so the next 90 days hold one expiry
    (SLA-011, in 45 days) and one notice deadline (SLA-003 renews by itself in 200 days unless
    notice is given 6 months before). Returns the next 90 days as the service computes them."""
    from datetime import date, timedelta

    today = date.today()
    service.correct_term("SLA-011", "expiration_date", (today + timedelta(days=45)).isoformat())
    service.correct_term("SLA-003", "expiration_date", (today + timedelta(days=200)).isoformat())
    service.correct_term("SLA-003", "auto_renewal", "yes")
    service.correct_term("SLA-003", "renewal_notice", "6 months")
    soon = service.renewal_calendar(within_days=90)
    assert {"SLA-011", "SLA-003"} <= {r.sla_id for r in soon}, soon
    return soon


def test_renewals_and_playbook_deviations_on_a_laptop(streamlit_server, browser):
    """The Renewals page (next 90 days, timeline with hover evidence, table, downloads) and the
    playbook deviations on the Compliance gaps page, at 1280x800, looked at in screenshots."""
    from core import service

    url, log = streamlit_server
    soon = _give_dates(service)
    every = service.renewal_calendar()
    _screen(browser, 1280, 800)
    _open(browser, url + "renewals", "Renewals")
    headings = browser.eval("Array.from(document.querySelectorAll('h3')).map(h => h.innerText.trim())")
    assert "Next 90 days" in headings and "Calendar" in headings, headings
    text = browser.eval("document.body.innerText")
    assert f"{len(soon)} agreement(s) to act on by" in text and "No expiry date:" in text
    assert browser.eval("document.querySelectorAll('[data-testid=\"stDataFrame\"]').length") == 3
    buttons = browser.eval("Array.from(document.querySelectorAll('[data-testid=\"stDownloadButton\"] button'))"
                           ".map(b => b.innerText.trim())")
    assert any("Download CSV" in b for b in buttons) and any("Download calendar (.ics)" in b for b in buttons), buttons
    # the timeline: one marker per notice deadline and per expiry, a row per agreement
    dated = [r for r in every if r.action_date]
    markers = sum(1 for r in dated if r.notice_deadline) + sum(1 for r in dated if r.expiration_date)
    drawn = browser.eval("document.querySelectorAll('.js-plotly-plot .scatterlayer .points path.point').length")
    assert drawn == markers, (drawn, markers)
    rows = browser.eval("Array.from(document.querySelectorAll('.js-plotly-plot .yaxislayer-above text'))"
                        ".map(t => t.textContent)")
    assert len(rows) == len(dated) and all(r.sla_id in " ".join(rows) for r in dated), rows
    assert not browser.eval("!!document.querySelector('.js-plotly-plot .modebar')")
    _laid_out(browser, "renewals")
    _shot(browser, "renewals-next-90-days-1280x800.png")
    # hovering the notice deadline shows the agreement, the date, the spend and the evidence
    _scroll_to(browser, "document.querySelector('[data-testid=\"stPlotlyChart\"]')", "the timeline")
    box = browser.eval("""(() => { const traces = Array.from(document.querySelectorAll('.js-plotly-plot .scatterlayer .trace'));
        const pts = Array.from(document.querySelectorAll('.js-plotly-plot .scatterlayer path.point'));
        const p = pts.find(el => el.closest('.trace') && getComputedStyle(el).fill.includes('209')) || pts[0];
        const r = p.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()""")
    browser.send("Input.dispatchMouseEvent", type="mouseMoved", x=box[0], y=box[1])
    hover = wait_for(lambda: browser.eval("(document.querySelector('.js-plotly-plot .hoverlayer') || {}).textContent || ''"),
                     15, "the timeline's hover label")
    assert "spend:" in hover and "last day to give notice" in hover, hover
    assert any(r.sla_id in hover and r.notice_deadline in hover and r.evidence[:40] in hover for r in dated), hover
    _shot(browser, "renewals-timeline-1280x800.png")
    browser.send("Input.dispatchMouseEvent", type="mouseMoved", x=5, y=5)
    _scroll_to(browser, "document.querySelector('.st-key-renewals_downloads')", "the downloads")
    _laid_out(browser, "renewals, scrolled")
    _shot(browser, "renewals-table-1280x800.png")

    # the playbook deviations: the spend-at-risk metric, suppliers, one agreement's checks
    report = service.playbook_deviations()
    _open(browser, url + "gaps", "Compliance gaps")
    assert browser.eval("(() => { const t = Array.from(document.querySelectorAll('[role=\"tab\"]'))"
                        ".find(t => t.innerText.trim() === 'Playbook deviations'); if (t) t.click(); return !!t; })()")
    metric = ("Array.from(document.querySelectorAll('[data-testid=\"stMetric\"]')).find(m => m.offsetParent "
              "&& m.innerText.startsWith('Spend at risk from deviations'))")
    value = wait_for(lambda: browser.eval(f"(() => {{ const m = {metric}; return m ? m.innerText : ''; }})()"),
                     60, "the spend-at-risk metric")
    assert f"{report.spend_at_risk():,.0f} EUR" in value, value
    _settle(browser, "the deviations tab")
    text = browser.eval("document.body.innerText")
    assert "need review" in text and "Positions" in text and "Suppliers" in text
    _laid_out(browser, "playbook deviations")
    _shot(browser, "gaps-deviations-1280x800.png")
    _scroll_to(browser, _heading("One agreement"), "one agreement's checks")
    first = sorted(report.agreements, key=lambda a: (-len(a.deviations), -len(a.uncertain), a.sla_id))[0]
    quoted = [c for c in first.checks if c.quote and c.status in ("deviates", "uncertain")]
    text = browser.eval("document.body.innerText")
    for c in quoted:   # each deviation or uncertain value with its evidence quote, under the checks
        assert f"{c.title}: " in text and (c.status != "uncertain" or "uncertain: needs review" in text), c
    _laid_out(browser, "one agreement's checks")
    _shot(browser, "gaps-deviations-agreement-1280x800.png")

    # the Data page's contract terms: the review queue, the correction form, tables against text
    _open(browser, url + "data", "Data")
    assert browser.eval("(() => { const t = Array.from(document.querySelectorAll('[role=\"tab\"]'))"
                        ".find(t => t.innerText.trim() === 'Contract terms'); if (t) t.click(); return !!t; })()")
    wait_for(lambda: "Correct a value" in browser.eval("document.body.innerText"), 60, "the contract terms tab")
    _settle(browser, "the contract terms tab")
    _laid_out(browser, "contract terms")
    _shot(browser, "data-terms-1280x800.png")


def test_the_cut_off_check_finds_clipped_text(tmp_path, browser):
    """The screenshot test's cut-off and overlap checks are only worth something if they see a clipped
    metric, button and select box and two controls over each other; a page made that way proves it,
    and the short texts and lone controls beside them stay clean."""
    script = ROOT / "tests" / "fixtures" / "clipped_page.py"
    with run_streamlit(tmp_path / "clipped.log", str(script)) as url:
        _screen(browser, 1280, 800)
        browser.send("Page.navigate", url=url)
        wait_for(lambda: "The end of the page" in (browser.eval("document.body.innerText") or ""), 120, "the page")
        _settle(browser, "the clipped page")
        found = " | ".join(item["text"] for item in _cut_off(browser))
        overlaps = browser.eval(OVERLAPS)
    assert [sorted(pair) for pair in overlaps] == [sorted(["Overlapped", "On top"])], overlaps
    for clipped in ("EUR 123,456,789.00 across every supplier", "Which suppliers in Germany have a data",
                    "Termination for Convenience (ordinary notice"):
        assert clipped in found, (clipped, found)
    for whole in ("1,234", "Short", "The end of the page"):
        assert whole not in found, (whole, found)

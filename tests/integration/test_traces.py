"""A run that explains itself: traces kept by their mode, the element outlined, console, page errors and
requests per node, a video that plays with the nodes as chapters, secrets unreadable in every picture and frame,
one zip to share, and traces that go with their run, on real pages in the real app."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path
from typing import Any, Iterator

import pytest
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from app.browser import tabpictures, trace
from app.browser.tabpictures import TabPictures
from app.wiring.shell import BrowserPilotApp
from tests.support.disk_audit import qt_thread_disk
from tests.support.documents import chain, node, ok
from tests.support.qt import call, run_js, run_op, running_app, saved, view_of
from tests.support.server import LocalServer, Request, Response
from workflows.runs import MAX_RUNS, new_run_id

SECRET = "Zq7-PINE-4410-owl"
VIEWPORT_WIDTH = 1200  # a windowless tab's page area (app/browser/service.py PAGE_SIZE)
PAGE = """<!doctype html><title>Account</title>
<style>body { font: 18px sans-serif; margin: 16px; background: #fff; }
input { font: 28px monospace; width: 460px; height: 44px; background: #fff; color: #000; border: 1px solid #888; }
button { font: 20px sans-serif; padding: 8px 20px; margin-top: 12px; }</style>
<h1>Account</h1>
<p><label>User <input id=user></label></p>
<p><label>Token <input id=token type=text autocomplete=off></label></p>
<button id=save>Save</button><p id=said></p>
<script>
document.getElementById('token').addEventListener('change', (e) => console.log('token is ' + e.target.value));
document.getElementById('save').addEventListener('click', async () => {
  console.warn('saving the account');
  const response = await fetch('/api/save', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({user: document.getElementById('user').value,
                          token: document.getElementById('token').value})});
  document.getElementById('said').textContent = await response.text();
  setTimeout(() => { throw new Error('the save banner broke'); }, 0);
});
</script>"""


# A big block a click turns from red to blue at once, and a button that changes nothing one can see.
PAINT_PAGE = """<!doctype html><title>Paint</title>
<style>body { margin: 0; background: #fff; } #block { width: 900px; height: 420px; background: rgb(210, 30, 30); }
button { font: 20px sans-serif; margin: 12px; }</style>
<div id=block></div><button id=paint>Paint</button><button id=other>Other</button>
<script>
document.getElementById('paint').addEventListener('click', () => {
  document.getElementById('block').style.background = 'rgb(30, 60, 220)';
});
document.getElementById('other').addEventListener('click', () => console.log('other'));
</script>"""


# A page that shows nothing until its script fills it, a moment after it loaded, and then draws nothing more.
LATE_PAGE = """<!doctype html><title>Late</title><body style="margin: 0; background: #fff">
<script>setTimeout(() => { document.body.innerHTML = '<h1 style="margin: 0; font-size: 120px">Late</h1>'; }, 150);
</script>"""


@pytest.fixture(scope="module")
def app(qapp: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("trace-data")) as shell:
        yield shell


@pytest.fixture(scope="module")
def site() -> Iterator[LocalServer]:
    with LocalServer() as local:
        local.route("/account", PAGE)

        def save(request: Request) -> Response:
            return Response(f"saved {json.loads(request.body)['user']}", content_type="text/plain")

        local.route("/api/save", save)
        local.route("/paint", PAINT_PAGE)
        local.route("/late", LATE_PAGE)
        yield local


@pytest.fixture
def tab(qtbot: QtBot, app: BrowserPilotApp) -> str:
    return str(ok(run_op(qtbot, app, "tab_open", {}))["tabId"])


def account_flow(site: LocalServer, name: str, *extra: dict[str, Any], secret: bool = False) -> dict[str, Any]:
    start = node("start", "start", variables=[{"variable": "token", "type": "secret"}] if secret else [])
    fills = [node("user", "fill", title="User name", locator={"selector": "#user"}, text="alice")]
    if secret:
        fills.append(node("token", "fill", title="Token", locator={"selector": "#token"}, text="{{#input.token#}}"))
    return chain(name, start, node("open", "goto", title="Open the account", url=site.url("/account")), *fills,
                 node("save", "click", title="Save", locator={"selector": "#save"}),
                 node("said", "wait", title="Saved", locator={"selector": "text=saved alice"}, timeout=10),
                 *extra, node("end", "end"))


def run(qtbot: QtBot, app: BrowserPilotApp, doc: dict[str, Any], tab: str, **params: Any) -> dict[str, Any]:
    return run_op(qtbot, app, "workflow_run", {"workflow": doc, "tabId": tab, **params}, timeout=90_000)


def step(record: dict[str, Any], node_id: str) -> dict[str, Any]:
    return next(entry for entry in record["trace"] if entry["node"] == node_id)


def red(image: QImage, x: float, y: float) -> bool:
    colour = image.pixelColor(int(x), int(y))
    return colour.red() > 150 and colour.green() < 110 and colour.blue() < 110


def dark_share(image: QImage, box: dict[str, float], scale: float, inset: float = 3) -> float:
    """How much of the field's inside (CSS px box, `scale` image px per CSS px) is dark: ~0 empty, ~1 covered."""
    left, top = int((box["x"] + inset) * scale), int((box["y"] + inset) * scale)
    right = int((box["x"] + box["width"] - inset) * scale)
    bottom = int((box["y"] + box["height"] - inset) * scale)
    pixels = [image.pixelColor(x, y).lightness() for x in range(left, right) for y in range(top, bottom)]
    return sum(1 for value in pixels if value < 110) / max(1, len(pixels))


def probe(path: str) -> dict[str, Any]:
    done = subprocess.run(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-show_chapters", "-of", "json",
                           path], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# -- which traces are kept ------------------------------------------------------------------------------------------
def test_a_failed_run_keeps_its_trace_and_the_step_before_the_failure_shows_the_element_outlined(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer, tab: str) -> None:
    doc = account_flow(site, "Fails after saving",
                       node("missing", "click", title="Confirm", locator={"selector": "#confirm"}, timeout=1))
    record = run(qtbot, app, doc, tab)["run"]  # the default: trace on-failure
    assert record["status"] == "failed" and record["stoppedAt"] == "missing"
    assert record["tracing"] == {"trace": "on-failure", "video": "off"}
    save = step(record, "save")
    assert save["element"].startswith("<button id=save") and save["locator"] == "selector"
    before = QImage(save["before"])
    assert before.width() == 800  # scaled down from the 1200 px page
    scale = before.width() / VIEWPORT_WIDTH
    box = save["box"]
    middle = (box["y"] + box["height"] / 2) * scale
    left_edge = (box["x"] - 4) * scale
    right_edge = (box["x"] + box["width"] + 3) * scale
    assert sum(red(before, x, middle + dy) for x in (left_edge, right_edge) for dy in (-3, 0, 3)) >= 5
    assert not red(before, (box["x"] + box["width"] / 2) * scale, middle)  # the button itself is not painted over
    assert [r["method"] for r in save["requests"] if r["url"].endswith("/api/save")] == ["POST"]
    assert [m["text"] for m in save["console"]] == ["saving the account"]
    errors = [(entry["node"], e["text"]) for entry in record["trace"] for e in entry.get("pageErrors") or []]
    assert [node_id for node_id, text in errors if "the save banner broke" in text] in (["save"], ["said"], ["missing"])
    failed = step(record, "missing")
    assert failed["after"] and Path(failed["after"]).is_file() and not failed["ok"]
    assert all(entry["atMs"] is not None for entry in record["trace"])
    opened = step(record, "open")
    assert [(r["method"], r["type"], r.get("status")) for r in opened["requests"]
            if r["url"] == site.url("/account")] == [("GET", "document", 200)]


def test_an_ok_run_keeps_no_trace_on_failure_and_always_keeps_one_picture_per_node(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer, tab: str) -> None:
    doc = account_flow(site, "Saves")
    quiet = run(qtbot, app, doc, tab)["run"]
    assert quiet["status"] == "ok" and quiet["tracing"] == {"trace": "on-failure", "video": "off"}
    assert not any(entry.get("before") or entry.get("after") or entry.get("console") for entry in quiet["trace"])
    folder = app.ctx.runs.folder(quiet["id"])
    assert not (folder / "trace").exists() and not list(folder.glob("video.*"))

    record = run(qtbot, app, doc, tab, trace="always")["run"]
    assert record["status"] == "ok"
    pictures = [entry["after"] for entry in record["trace"]]
    assert all(pictures) and all(Path(path).is_file() for path in pictures)
    assert all(QImage(path).width() == 800 for path in set(pictures))
    kept = sorted(path.name for path in (app.ctx.runs.folder(record["id"]) / "trace").iterdir())
    named = {Path(p).name for entry in record["trace"] for p in (entry.get("before"), entry["after"]) if p}
    assert kept == sorted(named)  # one file per picture the record names, nothing more
    assert step(record, "user")["before"] and step(record, "save")["before"]  # acting nodes: at the moment they act


def block_colour(path: str) -> str:
    """What the block of PAINT_PAGE shows in a trace picture (800 px wide: 2/3 of the page's CSS px)."""
    colour = QImage(path).pixelColor(int(450 * 800 / VIEWPORT_WIDTH), int(210 * 800 / VIEWPORT_WIDTH))
    if colour.red() > 150 and colour.blue() < 110:
        return "red"
    if colour.blue() > 150 and colour.red() < 110:
        return "blue"
    return colour.name()


def test_a_request_heard_late_goes_to_the_step_whose_page_asked_for_it(qtbot: QtBot, app: BrowserPilotApp,
                                                                       site: LocalServer, tab: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The tab's request interceptor hears a request a moment after the page asked for it, at times once the next
    node began (a click's fetch): here it hears the Save's fetch 0.6 s late, and the request is still the Save's."""
    heard = trace._RequestLog.interceptRequest

    def late(log: trace._RequestLog, info: Any) -> None:
        heard(log, info)
        if info.requestUrl().path() == "/api/save":
            when, *rest = log.rows[-1]
            log.rows[-1] = (when + 0.6, *rest)

    monkeypatch.setattr(trace._RequestLog, "interceptRequest", late)
    record = run(qtbot, app, account_flow(site, "Saves, heard late"), tab, trace="always")["run"]
    assert record["status"] == "ok"
    saves = {entry["node"]: [r["method"] for r in entry.get("requests") or [] if r["url"].endswith("/api/save")]
             for entry in record["trace"]}
    assert saves["save"] == ["POST"] and sum(map(len, saves.values())) == 1, saves


@pytest.mark.parametrize("then", ["waits", "acts", "ends"])
def test_a_steps_pictures_show_the_page_before_and_after_the_step(qtbot: QtBot, app: BrowserPilotApp,
                                                                   site: LocalServer, tab: str, then: str) -> None:
    """A click that repaints a big block: its before picture shows the block as it was on the page just loaded
    (not the page before it, which Qt shows until the new one's first frame arrives: each attempt loads the page
    again over the blue one before, the second from another site), whether the next node waits, acts at once or
    there is none; its after picture shows the new colour when the next node waits or there is none. (When the
    next node acts at once, the after picture is the page as Qt showed it at that moment, and under load the
    click's frame may not be drawn yet: the next node is not slowed down to wait for it, so that case is not
    checked.) A lag would show in one run of a few: it depends on when frames are drawn."""
    following = {"waits": [node("other", "wait", title="Blue", locator={"selector": "#block"}, timeout=5)],
                 "acts": [node("other", "click", title="Other", locator={"selector": "#other"})],
                 "ends": []}[then]
    for attempt in range(3):
        url = site.url("/paint")
        if attempt == 1:  # another site: the view gets a new render widget for it
            url = url.replace("127.0.0.1", "localhost")
        doc = chain(f"Paint then {then} {attempt}", node("start", "start"),
                    node("open", "goto", title="Open", url=url),
                    node("paint", "click", title="Paint", locator={"selector": "#paint"}),
                    *following, node("end", "end"))
        record = run(qtbot, app, doc, tab, trace="always")["run"]
        assert record["status"] == "ok"
        painted = step(record, "paint")
        assert block_colour(painted["before"]) == "red", (attempt, block_colour(painted["before"]), painted)
        if then != "acts":
            assert block_colour(painted["after"]) == "blue", (attempt, painted)


# -- the video ----------------------------------------------------------------------------------------------------
def test_the_video_plays_lasts_as_long_as_the_run_and_has_the_nodes_as_chapters(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer, tab: str) -> None:
    doc = account_flow(site, "Filmed", node("pause", "code", title="Think", code="await new Promise(r => "
                                            "setTimeout(r, 1500)); return {}", outputs={}))
    record = run(qtbot, app, doc, tab, video="always")["run"]
    assert record["status"] == "ok" and record["video"].endswith(".webm")
    assert not any(entry.get("after") for entry in record["trace"])  # the video alone: no trace kept
    qtbot.waitUntil(lambda: len(probe(record["video"])["chapters"]) == len(record["trace"]), timeout=20_000)
    found = probe(record["video"])
    video = next(s for s in found["streams"] if s["codec_type"] == "video")
    assert video["codec_name"] == "vp9" and int(video["width"]) == 960
    seconds = float(found["format"]["duration"])
    assert abs(seconds - record["durationMs"] / 1000) <= max(0.8, 0.2 * record["durationMs"] / 1000)
    titles = [chapter["tags"]["title"] for chapter in found["chapters"]]
    assert titles == [f"{entry.get('title') or entry['node']} ({entry['type']})" for entry in record["trace"]]
    starts = [float(chapter["start_time"]) for chapter in found["chapters"]]
    think = titles.index("Think (code)")
    assert starts == sorted(starts) and starts[think + 1] - starts[think] >= 1.3  # the pause is its own chapter
    frames = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                             "stream=nb_read_frames", "-of", "csv=p=0", record["video"]], capture_output=True,
                            text=True, timeout=60)
    assert int(frames.stdout.strip()) >= 5 * seconds - 2  # it decodes, frame after frame


# -- secrets --------------------------------------------------------------------------------------------------------
def test_a_secret_typed_into_a_text_field_is_unreadable_in_every_screenshot_and_video_frame(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer, tab: str, tmp_path: Path) -> None:
    doc = account_flow(site, "Secret token", secret=True)
    record = run(qtbot, app, doc, tab, trace="always", video="always", inputs={"token": SECRET})["run"]
    assert record["status"] == "ok"
    sent = json.loads(site.hits("/api/save")[-1].body)
    assert sent["token"] == SECRET  # the page got the real value
    console = [m["text"] for entry in record["trace"] for m in entry.get("console") or []]
    assert SECRET not in json.dumps(record) and "token is <secret:token>" in console
    field = step(record, "token")["box"]
    shots = sorted({p for entry in record["trace"] for p in (entry.get("before"), entry.get("after")) if p})
    typed_shots = [p for p in shots if Path(p).name >= Path(step(record, "token")["after"]).name]
    assert len(typed_shots) >= 3
    for path in shots:
        share = dark_share(QImage(path), field, 800 / VIEWPORT_WIDTH)
        assert share < 0.02 or share > 0.9, f"{path}: the token field is {share:.0%} dark (readable text?)"
    pictures_of = [(e["node"], e.get("before"), e.get("after")) for e in record["trace"]]
    for path in typed_shots:  # once typed, the field is covered
        assert dark_share(QImage(path), field, 800 / VIEWPORT_WIDTH) > 0.9, (path, pictures_of)
    frames = tmp_path / "frames"
    frames.mkdir()
    subprocess.run(["ffmpeg", "-v", "error", "-i", record["video"], "-vf", "fps=10", str(frames / "%04d.png")],
                   check=True, timeout=120)
    pictures = sorted(frames.iterdir())
    assert len(pictures) >= 10 * record["durationMs"] / 1000 - 3
    shares = [dark_share(QImage(str(path)), field, 960 / VIEWPORT_WIDTH) for path in pictures]
    for path, share in zip(pictures, shares):
        assert share < 0.02 or share > 0.9, f"frame {path.name}: the token field is {share:.0%} dark"
    assert shares[-1] > 0.9  # the field still holds the secret at the end: covered



def test_a_page_that_stops_answering_keeps_the_secret_field_covered(qtbot: QtBot, app: BrowserPilotApp,
                                                                    site: LocalServer, tab: str) -> None:
    """A page that stops answering after a secret was typed (a script hogs it): its picture still covers the field,
    where the page said it was last, and the page is asked once, not twice; a tab whose page never said where its
    secret fields are gives no picture at all (one that might show the secret is not taken)."""
    ok(run_op(qtbot, app, "page_navigate", {"tabId": tab, "url": site.url("/account")}))
    view = view_of(app, tab)
    field = run_js(qtbot, view, f"""(() => {{ const f = document.getElementById('token'); f.focus();
        f.value = {json.dumps(SECRET)}; const r = f.getBoundingClientRect();
        return {{x: r.x, y: r.y, width: r.width, height: r.height}}; }})()""")
    watch = app.service.tracing.watch(tab)
    assert watch is not None
    never_said = TabPictures(view)
    try:
        call(qtbot, watch.pictures.mask_focused([SECRET]))
        answered = call(qtbot, watch.pictures.picture())
        assert answered is not None and dark_share(answered.image, field, answered.scale) > 0.9
        view.page().runJavaScript("document.title = 'hogged'; "
                                  "setTimeout(() => { const end = Date.now() + 7000; while (Date.now() < end); }, 0)")
        qtbot.waitUntil(lambda: view.title() == "hogged", timeout=10_000)
        asked: list[object] = []
        ask = watch.pictures._boxes

        async def counted() -> object:
            asked.append(None)
            return await ask()

        watch.pictures._boxes = counted  # type: ignore[method-assign]
        hung = call(qtbot, watch.pictures.picture(), timeout=15_000)
        assert hung is not None and dark_share(hung.image, field, hung.scale) > 0.9
        assert len(asked) == 1  # a page that did not answer is not asked again for the same picture
        never_said.masking = True  # a secret was typed, and the page has not said where its fields are
        assert call(qtbot, never_said.picture(), timeout=15_000) is None
    finally:
        never_said.release()
        app.service.tracing.release(watch)
    assert run_js(qtbot, view, "document.title", timeout=15_000) == "hogged"  # answering again


def test_a_node_after_a_page_load_waits_for_its_first_paint_and_no_longer(qtbot: QtBot, app: BrowserPilotApp,
                                                                         site: LocalServer, tab: str) -> None:
    """A node acting on a page that just loaded waits until Qt's picture shows it (its before picture shows the page,
    not a blank one), and no longer: the page's first paint is known a moment after Qt drew it, and Qt may draw
    nothing more; the wait ends when the page says so, not at its bound (before, this test waited to it: 4 runs of 4)."""
    watch = app.service.tracing.watch(tab)
    assert watch is not None
    pictures = watch.pictures
    try:
        for attempt in range(3):
            ok(run_op(qtbot, app, "page_navigate", {"tabId": tab, "url": site.url(f"/late?attempt={attempt}")}))
            bound = 8.0  # (the page shows its heading 150 ms after it loaded: a wait to the bound is a miss)
            call(qtbot, pictures.document_shown(bound), timeout=15_000)
            assert pictures._drawn == pictures.documents, f"attempt {attempt}: not found shown within {bound} s"
            picture = pictures.grab()
            assert picture is not None
            heading = picture.image.copy(0, 0, int(300 * picture.scale), int(100 * picture.scale))
            dark = sum(1 for x in range(0, heading.width(), 2) for y in range(0, heading.height(), 2)
                       if heading.pixelColor(x, y).lightness() < 110)
            assert dark > 50, f"attempt {attempt}: the picture does not show the page's heading yet"
    finally:
        app.service.tracing.release(watch)



def test_a_still_page_is_found_painted_at_its_third_frame_and_a_change_is_in_the_picture(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer, tab: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """When Qt has not drawn since the page's second frame, the page's third one says its picture is out: a page
    that draws nothing more is not waited for to the delivery bound (made 60 s here, beyond the test's own wait:
    before, every still page's picture, and so every run's end, waited for it), and a change made just before is
    in the picture."""
    monkeypatch.setattr(tabpictures, "DELIVERY_WAIT", 60.0)
    ok(run_op(qtbot, app, "page_navigate", {"tabId": tab, "url": site.url("/paint")}))
    watch = app.service.tracing.watch(tab)
    assert watch is not None
    pictures = watch.pictures
    try:
        call(qtbot, pictures.document_shown(8.0), timeout=15_000)
        for attempt, (colour, rgb) in enumerate([("blue", "30, 60, 220"), ("red", "210, 30, 30"),
                                                 ("blue", "30, 60, 220"), ("blue", "30, 60, 220")]):
            run_js(qtbot, view_of(app, tab), f"(document.getElementById('block').style.background = 'rgb({rgb})', 1)")
            call(qtbot, pictures.painted(8.0), timeout=15_000)  # (waiting to the bound: a timeout error)
            picture = pictures.grab()
            assert picture is not None
            shown = picture.image.pixelColor(int(450 * picture.scale), int(210 * picture.scale))
            seen = "red" if shown.red() > 150 and shown.blue() < 110 else "blue" if shown.blue() > 150 else shown.name()
            assert seen == colour, f"attempt {attempt}: the picture shows {seen}, the page {colour}"
    finally:
        app.service.tracing.release(watch)

# -- sharing, and disk --------------------------------------------------------------------------------------------------
def test_run_export_holds_the_record_trace_screenshots_video_and_har_and_nothing_else(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer, tab: str, tmp_path: Path) -> None:
    ok(run_op(qtbot, app, "net_start", {"tabId": tab}))
    doc = account_flow(site, "Export me",
                       node("missing", "click", title="Confirm", locator={"selector": "#confirm"}, timeout=1))
    record = run(qtbot, app, doc, tab, trace="always", video="always")["run"]
    assert record["status"] == "failed" and record["har"] and record["screenshot"]
    save = step(record, "save")
    posted = [r for r in save["requests"] if r["url"].endswith("/api/save")]
    assert posted[0]["method"] == "POST" and '"user":"alice"' in posted[0]["requestBody"]  # capture on: bodies
    assert posted[0]["responseBody"] == "saved alice"
    target = tmp_path / "run.zip"
    with qt_thread_disk([app.data.root, tmp_path]) as recorded:
        exported = ok(run_op(qtbot, app, "run_export", {"runId": record["id"], "path": str(target)}))
    assert not recorded, recorded
    pictures = sorted({Path(p).name for e in record["trace"] for p in (e.get("before"), e.get("after")) if p})
    with zipfile.ZipFile(target) as archive:
        names = sorted(archive.namelist())
        inside = json.loads(archive.read("record.json"))
    assert names == sorted(["record.json", "network.har", "video.webm",
                            f"screenshots/{Path(record['screenshot']).name}", *(f"trace/{n}" for n in pictures)])
    assert exported["files"] == len(names) and exported["missing"] == []
    assert inside["id"] == record["id"] and inside["har"] == "network.har" and inside["video"] == "video.webm"
    assert step(inside, "save")["before"].startswith("trace/") and inside["screenshot"].startswith("screenshots/")


def test_a_run_dropped_from_the_store_takes_its_trace_and_video_with_it(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer, tab: str) -> None:
    record = run(qtbot, app, account_flow(site, "Dropped"), tab, trace="always", video="always")["run"]
    folder = app.ctx.runs.folder(record["id"])
    assert (folder / "trace").is_dir() and Path(record["video"]).is_file()
    model = app.ctx.runs.list(limit=1)[0]
    for _ in range(MAX_RUNS):
        app.ctx.runs.save(model.model_copy(update={"id": new_run_id(), "trace": []}, deep=True))
    saved(qtbot, app)
    qtbot.waitUntil(lambda: not folder.exists(), timeout=20_000)
    assert record["id"] not in {r.id for r in app.ctx.runs.list(limit=MAX_RUNS)}


def test_a_traced_run_touches_no_disk_on_the_qt_thread(qtbot: QtBot, app: BrowserPilotApp, site: LocalServer,
                                                       tab: str) -> None:
    doc = account_flow(site, "Quiet thread", secret=True)
    with qt_thread_disk([app.data.root]) as recorded:
        record = run(qtbot, app, doc, tab, trace="always", video="always", inputs={"token": SECRET})["run"]
        read = ok(run_op(qtbot, app, "run_read", {"runId": record["id"]}))
    assert record["status"] == "ok" and read["run"]["video"] == record["video"]
    assert not recorded, "\n".join(map(str, recorded))


# -- videos on demand (the original's tools), schedules ----------------------------------------------------------------
def test_screen_start_and_stop_film_a_tab_and_take_the_originals_form(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer, tab: str) -> None:
    ok(run_op(qtbot, app, "page_navigate", {"tabId": tab, "url": site.url("/account")}))
    started = ok(run_op(qtbot, app, "screen_start", {"tabId": tab}))
    assert started["recording"] is True and started["tabId"] == tab
    again = run_op(qtbot, app, "screen_start", {"tabId": tab})
    assert not again["ok"] and again["code"] == "already_recording"
    ok(run_op(qtbot, app, "page_type", {"tabId": tab, "locator": {"selector": "#user"}, "text": "alice"}))
    ok(run_op(qtbot, app, "page_click", {"tabId": tab, "locator": {"selector": "#save"}}))
    ok(run_op(qtbot, app, "page_wait", {"tabId": tab, "locator": {"selector": "text=saved alice"}}))
    stopped = ok(run_op(qtbot, app, "screen_stop", {"tabId": tab}))
    found = probe(stopped["path"])
    assert Path(stopped["path"]).parent == app.data.captures("env-default") and stopped["bytes"] > 0
    assert found["streams"][0]["codec_name"] == "vp9" and stopped["codec"] == "libvpx-vp9"
    assert abs(float(found["format"]["duration"]) - stopped["seconds"]) < 0.5 and stopped["seconds"] > 0
    missing = run_op(qtbot, app, "screen_stop", {"tabId": tab})
    assert not missing["ok"] and missing["code"] == "not_recording"
    ok(run_op(qtbot, app, "tab_activate", {"tabId": tab}))
    assert ok(run_op(qtbot, app, "screen_start", {"env": "env-default"}))["tabId"] == tab  # the original's {env}
    assert Path(ok(run_op(qtbot, app, "screen_stop", {"env": "env-default"}))["path"]).is_file()


def test_page_record_video_films_the_playing_video_element(qtbot: QtBot, app: BrowserPilotApp, site: LocalServer,
                                                           tab: str, tmp_path: Path) -> None:
    clip = tmp_path / "clip.webm"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=6:size=320x240:rate=25",
                    "-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p", "-deadline", "realtime", "-cpu-used", "8", str(clip)], check=True, timeout=120)
    data = clip.read_bytes()

    def ranged(request: Request) -> Response:  # Chromium plays a media file from a server that answers ranges
        start = int((request.headers.get("range") or "bytes=0-").split("=")[1].split("-")[0])
        return Response(data[start:], status=206, content_type="video/webm",
                        headers=[("Accept-Ranges", "bytes"), ("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")])

    site.route("/clip.webm", ranged)
    site.route("/film", "<!doctype html><title>Film</title><style>body{margin:0}</style><h1>A film</h1>"
                        "<video src=/clip.webm width=320 height=240 loop muted></video>")
    ok(run_op(qtbot, app, "page_navigate", {"tabId": tab, "url": site.url("/film")}))
    target = tmp_path / "out" / "film.webm"
    recorded = ok(run_op(qtbot, app, "page_record_video", {"tabId": tab, "seconds": 2, "savePath": str(target)},
                         timeout=60_000))
    assert recorded["path"] == str(target) and recorded["playing"] is True and 1.8 <= recorded["seconds"] <= 3
    stream = probe(str(target))["streams"][0]
    assert (int(stream["width"]), int(stream["height"])) == (320, 240)  # the element only, not the page
    frames = tmp_path / "frames"
    frames.mkdir()
    subprocess.run(["ffmpeg", "-v", "error", "-i", str(target), str(frames / "%03d.png")], check=True, timeout=60)
    pictures = sorted(frames.iterdir())
    assert len(pictures) >= 8 and QImage(str(pictures[1])) != QImage(str(pictures[-1]))  # it moved: it played
    ok(run_op(qtbot, app, "page_navigate", {"tabId": tab, "url": site.url("/account")}))
    none = run_op(qtbot, app, "page_record_video", {"tabId": tab, "seconds": 1})
    assert not none["ok"] and none["code"] == "no_video"


def test_a_schedule_gives_its_runs_its_trace_and_video_modes(qtbot: QtBot, app: BrowserPilotApp,
                                                            site: LocalServer) -> None:
    ok(run_op(qtbot, app, "workflow_write", {"workflow": account_flow(site, "Scheduled trace")}))
    created = ok(run_op(qtbot, app, "schedule_create", {"workflow": "Scheduled trace", "every": "1d",
                                                       "trace": "always", "video": "on-failure"}))
    assert created["schedule"]["trace"] == "always" and created["schedule"]["video"] == "on-failure"
    done = ok(run_op(qtbot, app, "schedule_run", {"schedule": created["schedule"]["id"], "wait": True},
                     timeout=90_000))
    record = ok(run_op(qtbot, app, "run_read", {"runId": done["result"]["runId"]}))["run"]
    assert record["status"] == "ok" and record["tracing"] == {"trace": "always", "video": "on-failure"}
    assert all(entry.get("after") for entry in record["trace"]) and "video" not in record


def test_a_batch_keeps_the_trace_and_video_of_the_rows_that_failed(qtbot: QtBot, app: BrowserPilotApp,
                                                                    site: LocalServer) -> None:
    doc = chain("Batch of users", node("start", "start", variables=[{"variable": "user", "type": "string"}]),
                node("open", "goto", title="Open the account", url=site.url("/account")),
                node("user", "fill", title="User name", locator={"selector": "#user"}, text="{{#input.user#}}"),
                node("save", "click", title="Save", locator={"selector": "#save"}),
                node("said", "wait", title="Saved alice", locator={"selector": "text=saved alice"}, timeout=2),
                node("end", "end"))
    done = ok(run_op(qtbot, app, "workflow_batch", {"workflow": doc, "rows": [{"user": "alice"}, {"user": "bob"}],
                                                    "concurrency": 2, "trace": "on-failure",
                                                    "video": "on-failure"}, timeout=120_000))
    assert [row["status"] for row in done["results"]] == ["ok", "failed"]
    passed, failed = (ok(run_op(qtbot, app, "run_read", {"runId": row["runId"]}))["run"] for row in done["results"])
    assert passed["tracing"] == failed["tracing"] == {"trace": "on-failure", "video": "on-failure"}
    assert not any(entry.get("after") for entry in passed["trace"]) and "video" not in passed
    assert not (app.ctx.runs.folder(passed["id"]) / "trace").exists()
    assert all(Path(entry["after"]).is_file() for entry in failed["trace"])
    assert Path(failed["video"]).is_file() and probe(failed["video"])["format"]["duration"]
    assert step(failed, "user")["element"].startswith("<input id=user")


def test_the_settings_choose_what_runs_keep(qtbot: QtBot, app: BrowserPilotApp, site: LocalServer, tab: str) -> None:
    from app.ui.settings_dialog import UnattendedSection

    section = UnattendedSection(app.settings)
    qtbot.addWidget(section)
    assert section.trace.currentData() == "on-failure" and section.video.currentData() == "off"
    assert section.disk.value() == 1024
    section.trace.setCurrentIndex(section.trace.findData("always"))
    section.disk.setValue(300)
    try:
        assert app.settings.current.trace == "always" and app.settings.current.trace_disk_mb == 300
        record = run(qtbot, app, account_flow(site, "By the settings"), tab)["run"]
        assert record["status"] == "ok" and record["tracing"] == {"trace": "always", "video": "off"}
        assert all(entry.get("after") for entry in record["trace"])
    finally:
        section.trace.setCurrentIndex(section.trace.findData("on-failure"))
        section.disk.setValue(1024)
    assert app.settings.current.trace == "on-failure"

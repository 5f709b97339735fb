"""The stream saver's pure parts (app/browser/streamsave.py), against real local servers: which cookies go
where, which URL is the manifest, and a redirect hop to a blocked host refused before it is sent."""

from __future__ import annotations

import shutil
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from app.browser.streamsave import Candidate, Identity, StreamJob, StreamRefused, candidates, cookie_jar, \
    Progress, manifest_kind, page_headers, probe, site_extractor, sniff
from tests.support.server import LocalServer
from tests.support.streams import CLIP_SECONDS, ffprobe, make_alternate_audio_hls, make_streams

MEDIA_PLAYLIST = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\nseg0.ts\n#EXT-X-ENDLIST\n"
MASTER_PLAYLIST = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100000\nvideo.m3u8\n"


def sent_cookie(cookies: list[dict[str, object]], url: str) -> str:
    request = urllib.request.Request(url)
    cookie_jar(cookies).add_cookie_header(request)
    return str(request.get_header("Cookie") or "")


def test_the_profiles_cookies_go_only_where_the_browser_would_send_them() -> None:
    later = time.time() + 3600
    cookies: list[dict[str, object]] = [
        {"name": "host", "value": "1", "domain": "shop.test", "path": "/", "session": True, "expires": -1},
        {"name": "wide", "value": "2", "domain": ".shop.test", "path": "/", "expires": later},
        {"name": "safe", "value": "3", "domain": "shop.test", "path": "/", "secure": True, "expires": later},
        {"name": "deep", "value": "4", "domain": "shop.test", "path": "/media", "expires": later},
        {"name": "gone", "value": "5", "domain": "shop.test", "path": "/", "expires": time.time() - 10},
        {"name": "ip", "value": "6", "domain": "127.0.0.1", "path": "/", "session": True, "expires": -1},
    ]
    assert sent_cookie(cookies, "http://shop.test/media/a.m3u8") == "deep=4; host=1; wide=2"
    assert sent_cookie(cookies, "https://shop.test/x") == "host=1; safe=3; wide=2"
    assert sent_cookie(cookies, "http://cdn.shop.test/media/seg.ts") == "wide=2"  # host-only stays home
    assert sent_cookie(cookies, "http://other.test/") == ""
    assert sent_cookie(cookies, "http://127.0.0.1:8080/a") == "ip=6"
    assert sent_cookie(cookies, "http://127.0.0.2:8080/a") == ""


def test_manifests_are_known_by_type_extension_or_first_bytes() -> None:
    assert manifest_kind("https://v.test/a/index.m3u8?token=1") == "hls"
    assert manifest_kind("https://v.test/a/manifest.mpd") == "dash"
    assert manifest_kind("https://v.test/api/play", "application/dash+xml; charset=utf-8") == "dash"
    assert manifest_kind("https://v.test/api/play", "application/vnd.apple.mpegurl") == "hls"
    assert manifest_kind("https://v.test/seg1.ts") == ""
    assert sniff(b"\xef\xbb\xbf#EXTM3U\n") == "hls"
    assert sniff(b'<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011">') == "dash"
    assert sniff(b"<html><body>MPD</body></html>") == ""
    known, unknown = candidates([Candidate("https://v.test/app.js"), Candidate("https://v.test/a.m3u8"),
                                 Candidate("https://v.test/api/stream?id=3"), Candidate("https://v.test/seg1.ts"),
                                 Candidate("https://v.test/b.m3u8"), Candidate("blob:https://v.test/x")])
    assert [c.url for c in known] == ["https://v.test/b.m3u8", "https://v.test/a.m3u8"]  # newest first
    assert [c.url for c in unknown] == ["https://v.test/api/stream?id=3"]


@pytest.fixture
def sites() -> Iterator[tuple[LocalServer, LocalServer]]:
    with LocalServer() as server, LocalServer("127.0.0.2") as other:
        yield server, other


def allow_all(url: str) -> str | None:
    return None


def test_probe_prefers_a_master_playlist_and_reads_urls_of_no_known_kind(
        sites: tuple[LocalServer, LocalServer]) -> None:
    server, _other = sites
    server.route("/video.m3u8", MEDIA_PLAYLIST, content_type="application/vnd.apple.mpegurl")
    server.route("/master.m3u8", MASTER_PLAYLIST, content_type="application/vnd.apple.mpegurl")
    server.route("/api/config", '{"player": 1}', content_type="application/json")
    server.route("/api/manifest", '<?xml version="1.0"?><MPD type="static"></MPD>', content_type="text/plain")
    identity = Identity(blocked=allow_all, browser_headers={"User-Agent": "TestAgent/1"})
    fetched = [Candidate(server.url(path)) for path in ("/master.m3u8", "/video.m3u8")]
    chosen = probe(*candidates(fetched), identity)
    assert chosen is not None and chosen.url == server.url("/master.m3u8")  # the newest is only a variant
    fetched = [Candidate(server.url(path)) for path in ("/api/manifest", "/api/config")]
    chosen = probe(*candidates(fetched), identity)
    assert chosen is not None and (chosen.url, chosen.kind) == (server.url("/api/manifest"), "dash")
    assert {r.headers.get("user-agent") for r in server.requests} == {"TestAgent/1"}


def test_a_redirect_to_a_blocked_host_is_refused_before_it_is_sent(tmp_path: Path,
                                                                    sites: tuple[LocalServer, LocalServer]) -> None:
    server, other = sites
    other.route("/index.m3u8", MEDIA_PLAYLIST, content_type="application/vnd.apple.mpegurl")
    server.route("/index.m3u8", "", status=302, headers=[("Location", other.url("/index.m3u8"))])

    def blocked(url: str) -> str | None:
        return "blocked by the policy of env-x: 127.0.0.2 (blockedDomains: 127.0.0.2)" if "127.0.0.2" in url else None

    job = StreamJob(server.url("/index.m3u8"), "hls", tmp_path, None, Identity(blocked=blocked))
    with pytest.raises(StreamRefused) as refused:
        job.run()
    assert str(refused.value) == (f"the request to {other.url('/index.m3u8')} was not sent: blocked by the policy "
                                  f"of env-x: 127.0.0.2 (blockedDomains: 127.0.0.2)")
    assert server.hits("/index.m3u8") and other.requests == []
    assert list(tmp_path.iterdir()) == []


def test_a_site_yt_dlp_knows_is_left_to_its_extractor_and_others_to_the_traffic() -> None:
    assert site_extractor("https://www.youtube.com/watch?v=BaW_jenozKc") == "Youtube"
    assert site_extractor("https://vimeo.com/76979871") == "Vimeo"
    assert site_extractor("http://127.0.0.1:8080/player?src=/ts/index.m3u8") is None
    assert site_extractor("https://shop.example.com/lessons/3") is None



@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed (./dev.sh setup installs it)")
def test_a_dash_job_reports_bytes_fragments_of_each_stream_then_merging(tmp_path: Path,
                                                                        sites: tuple[LocalServer, LocalServer]) -> None:
    server, _other = sites
    streams = make_streams(tmp_path / "streams")
    for path, file in streams.files().items():
        server.route(path, file.read_bytes(), content_type="application/octet-stream")
    seen: list[Progress] = []
    job = StreamJob(server.url("/dash/manifest.mpd"), "dash", tmp_path / "out", "talk", Identity(blocked=allow_all),
                    on_progress=lambda progress: seen.append(Progress(**vars(progress))))
    result = job.run()
    assert result["name"] == "talk.webm" and sorted(result["formats"]) == ["0", "1"]
    assert ffprobe(result["path"])["streams"] == [("audio", "opus"), ("video", "vp9")]
    assert abs(ffprobe(result["path"])["duration"] - CLIP_SECONDS) <= 0.5
    phases = [p.phase for p in seen]
    assert phases.index("merging") > phases.index("downloading") and phases[-1] == "done"
    downloading = [p for p in seen if p.phase == "downloading"]
    assert {p.part for p in downloading} == {1, 2} and {p.parts for p in downloading} == {2}
    assert max(p.fragments for p in downloading) >= 4 and max(p.fragment for p in downloading) >= 3
    assert [p.bytes for p in downloading] == sorted(p.bytes for p in downloading)  # it only grows
    assert seen[-1].bytes == result["bytes"] == Path(result["path"]).stat().st_size
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["talk.webm"]  # no parts, no reservation


def test_referer_and_origin_are_what_the_pages_own_fetch_would_send() -> None:
    page = "https://shop.test/watch?v=1#t=3"
    assert page_headers(page, "https://shop.test/m/index.m3u8") == {"Referer": "https://shop.test/watch?v=1"}
    assert page_headers(page, "https://cdn.test/seg1.ts") == {"Referer": "https://shop.test/", "Origin": "https://shop.test"}
    assert page_headers(page, "http://cdn.test/seg1.ts") == {"Origin": "https://shop.test"}  # no downgrade leak
    assert page_headers("about:blank", "https://cdn.test/seg1.ts") == {}


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed (./dev.sh setup installs it)")
def test_an_hls_master_with_a_separate_audio_rendition_is_merged(tmp_path: Path,
                                                                 sites: tuple[LocalServer, LocalServer]) -> None:
    server, _other = sites
    master = make_alternate_audio_hls(tmp_path / "alt")
    for file in master.parent.iterdir():
        server.route(f"/alt/{file.name}", file.read_bytes(), content_type="application/octet-stream")
    result = StreamJob(server.url("/alt/master.m3u8"), "hls", tmp_path / "out", None, Identity(blocked=allow_all)).run()
    assert len(result["formats"]) == 2 and result["name"] == "video.mp4"
    probe_result = ffprobe(result["path"])
    assert probe_result["streams"] == [("audio", "aac"), ("video", "h264")]
    assert abs(probe_result["duration"] - CLIP_SECONDS) <= 0.5
    assert {r.path for r in server.requests} >= {"/alt/stream_0.m3u8", "/alt/stream_1.m3u8", "/alt/s1_3.m4s"}

@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed (./dev.sh setup installs it)")
def test_in_the_bundle_ffmpeg_is_the_systems_run_with_the_systems_libraries(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bundle puts packaging/launchers/ first on PATH (its rthook) and runs with LD_LIBRARY_PATH at its own
    libraries: the `ffmpeg` there restores the system's library path and runs the system's ffmpeg."""
    import subprocess

    from app.browser.streamsave import find_ffmpeg

    launchers = tmp_path / "launchers"
    shutil.copytree(Path(__file__).resolve().parents[2] / "packaging" / "launchers", launchers, symlinks=True)
    system_bin = str(Path(str(shutil.which("ffmpeg"))).parent)
    monkeypatch.delenv("BROWSERPILOT_FFMPEG", raising=False)
    monkeypatch.setenv("PATH", f"{launchers}:{system_bin}:/usr/bin:/bin")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path / "bundle-libs"))
    found = find_ffmpeg()
    assert found == str(launchers / "ffmpeg")
    version = subprocess.run([found, "-version"], capture_output=True, text=True, timeout=30, check=True)
    assert version.stdout.startswith("ffmpeg version")
    shown = subprocess.run([str(launchers / "ffprobe"), "-version"], capture_output=True, text=True, timeout=30)
    assert shown.returncode == 0 and shown.stdout.startswith("ffprobe version")
    monkeypatch.setenv("PATH", str(launchers))  # a system without ffmpeg: the stand-in alone does not count
    assert find_ffmpeg() is None

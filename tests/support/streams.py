"""Streams made by ffmpeg at test time, and a page that plays one through MediaSource as a site's player does.

- `make_streams(folder)`: a 3 s clip (160x120, a tone) as HLS in TS segments (H.264/AAC), as HLS in fMP4
  segments encrypted with AES-128 (ffmpeg 5.1 cannot encrypt fMP4: the segments are encrypted here and the
  `#EXT-X-KEY` line written after the init segment's `#EXT-X-MAP`), and as DASH with video (VP9) and audio
  (Opus) apart. QtWebEngine decodes VP9/Opus but not H.264/AAC: the HLS pages fetch without playing.
- `PLAYER`: a page whose script fetches `?src=` (a manifest), reads its segment URLs (HLS: the playlist's
  lines, following a master's first variant; DASH: each Representation's SegmentTemplate), fetches every one
  and appends it to a SourceBuffer of a MediaSource when the browser can decode its type. It sets
  `window.done`, `window.failed`, `window.appended`, and `data-played` on the body when it is done.
- `ffprobe(path)`: the streams' kinds and codecs and the duration.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLIP_SECONDS = 3.0
KEY = bytes(range(16))
IV = bytes(range(16, 32))
_SOURCES = ["-f", "lavfi", "-i", f"testsrc=duration={CLIP_SECONDS:g}:size=160x120:rate=15",
            "-f", "lavfi", "-i", f"sine=frequency=440:duration={CLIP_SECONDS:g}"]
_H264_AAC = ["-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-g", "15",
             "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "48k"]
_HLS = ["-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod"]


@dataclass(frozen=True)
class Streams:
    folder: Path

    def files(self) -> dict[str, Path]:
        """URL path → file, for every file of every stream."""
        return {"/" + path.relative_to(self.folder).as_posix(): path
                for path in sorted(self.folder.rglob("*")) if path.is_file()}


def _ffmpeg(*args: str) -> None:
    subprocess.run(["ffmpeg", "-v", "error", "-y", *args], check=True, capture_output=True, timeout=60)


def make_streams(folder: Path) -> Streams:
    from Cryptodome.Cipher import AES
    from Cryptodome.Util.Padding import pad

    ts, fmp4, dash = folder / "ts", folder / "fmp4", folder / "dash"
    for place in (ts, fmp4, dash):
        place.mkdir(parents=True)
    _ffmpeg(*_SOURCES, *_H264_AAC, *_HLS, "-hls_segment_type", "mpegts",
            "-hls_segment_filename", str(ts / "seg%d.ts"), str(ts / "index.m3u8"))
    _ffmpeg(*_SOURCES, *_H264_AAC, *_HLS, "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
            "-hls_segment_filename", str(fmp4 / "seg%d.m4s"), str(fmp4 / "index.m3u8"))
    for segment in fmp4.glob("seg*.m4s"):
        segment.write_bytes(AES.new(KEY, AES.MODE_CBC, IV).encrypt(pad(segment.read_bytes(), 16)))
    (fmp4 / "key.bin").write_bytes(KEY)
    playlist = (fmp4 / "index.m3u8").read_text()
    playlist = playlist.replace('#EXT-X-MAP:URI="init.mp4"\n', '#EXT-X-MAP:URI="init.mp4"\n'
                                f'#EXT-X-KEY:METHOD=AES-128,URI="key.bin",IV=0x{IV.hex()}\n')
    assert "#EXT-X-KEY" in playlist, playlist
    (fmp4 / "index.m3u8").write_text(playlist)
    _ffmpeg(*_SOURCES, "-map", "0:v", "-map", "1:a", "-c:v", "libvpx-vp9", "-deadline", "realtime",
            "-cpu-used", "8", "-b:v", "150k", "-g", "15", "-c:a", "libopus", "-b:a", "32k", "-f", "dash",
            "-seg_duration", "1", "-dash_segment_type", "webm", "-adaptation_sets", "id=0,streams=v id=1,streams=a",
            str(dash / "manifest.mpd"))
    return Streams(folder)


def make_alternate_audio_hls(folder: Path) -> Path:
    """HLS as many sites serve it: a master playlist whose video variant takes its audio from a separate
    rendition (`#EXT-X-MEDIA:TYPE=AUDIO`), fMP4 segments. Returns the master playlist's path."""
    folder.mkdir(parents=True)
    _ffmpeg(*_SOURCES, *_H264_AAC, *_HLS, "-hls_segment_type", "fmp4", "-master_pl_name", "master.m3u8",
            "-var_stream_map", "v:0,agroup:aud a:0,agroup:aud", "-hls_fmp4_init_filename", "init.mp4",
            "-hls_segment_filename", str(folder / "s%v_%d.m4s"), str(folder / "stream_%v.m3u8"))
    master = folder / "master.m3u8"
    assert "TYPE=AUDIO" in master.read_text(), master.read_text()
    return master


def ffprobe(path: str | Path) -> dict[str, Any]:
    """`{streams: [(kind, codec)], duration}` of a media file."""
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type,codec_name:format=duration",
                          "-of", "json", str(path)], check=True, capture_output=True, text=True, timeout=30).stdout
    data = json.loads(out)
    return {"streams": sorted((s["codec_type"], s["codec_name"]) for s in data.get("streams", [])),
            "duration": float(data["format"]["duration"])}


PLAYER = """<!doctype html><title>Player</title>
<video id="player" muted width="160" height="120"></video>
<script>
const params = new URLSearchParams(location.search);
const manifest = new URL(params.get('src'), location.href).href;
const video = document.getElementById('player');
const source = new MediaSource();
video.src = URL.createObjectURL(source);
window.done = false; window.failed = null; window.appended = 0;

async function get(url, binary) {
  const response = await fetch(url, {credentials: 'include'});
  if (!response.ok) throw new Error(url + ' answered ' + response.status);
  return binary ? response.arrayBuffer() : response.text();
}
function hlsUrls(text, base) {
  const urls = [];
  for (const line of text.split('\\n').map((l) => l.trim())) {
    const uri = /URI="([^"]+)"/.exec(line);
    if (uri && /^#EXT-X-(MAP|KEY)/.test(line)) urls.push(new URL(uri[1], base).href);
    else if (line && !line.startsWith('#')) urls.push(new URL(line, base).href);
  }
  return urls;
}
function dashTracks(text, base) {
  const doc = new DOMParser().parseFromString(text, 'application/xml');
  return [...doc.getElementsByTagName('Representation')].map((rep) => {
    const template = rep.getElementsByTagName('SegmentTemplate')[0];
    const id = rep.getAttribute('id');
    let count = 0;
    for (const s of template.getElementsByTagName('S')) count += 1 + Number(s.getAttribute('r') || 0);
    const fill = (pattern, n) => pattern.replace('$RepresentationID$', id)
      .replace(/\\$Number%0(\\d+)d\\$/, (_m, width) => String(n).padStart(Number(width), '0'));
    const start = Number(template.getAttribute('startNumber') || 1);
    const urls = [new URL(fill(template.getAttribute('initialization'), 0), base).href];
    for (let n = start; n < start + count; n++) urls.push(new URL(fill(template.getAttribute('media'), n), base).href);
    return {type: `${rep.getAttribute('mimeType')}; codecs="${rep.getAttribute('codecs')}"`, urls};
  });
}
function append(buffer, data) {
  return new Promise((resolve) => {
    buffer.addEventListener('updateend', resolve, {once: true});
    buffer.appendBuffer(data);
  });
}
source.addEventListener('sourceopen', async () => {
  try {
    let tracks;
    const text = await get(manifest);
    if (params.get('kind') === 'dash') {
      tracks = dashTracks(text, manifest);
    } else {
      let playlist = manifest, body = text;
      if (body.includes('#EXT-X-STREAM-INF')) {
        playlist = hlsUrls(body, manifest)[0];
        body = await get(playlist);
      }
      tracks = [{type: params.get('type') || 'video/mp2t; codecs="avc1.42E01E,mp4a.40.2"', urls: hlsUrls(body, playlist)}];
    }
    const buffers = tracks.map((t) => MediaSource.isTypeSupported(t.type) ? source.addSourceBuffer(t.type) : null);
    for (const [index, track] of tracks.entries()) {
      const buffer = buffers[index];
      for (const url of track.urls) {
        const data = await get(url, true);
        if (buffer) { await append(buffer, data); window.appended++; }
      }
    }
  } catch (e) { window.failed = String(e && e.message || e); }
  window.done = true;
  document.body.setAttribute('data-played', window.failed ? 'failed' : 'yes');
});
</script>"""

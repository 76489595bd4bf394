"""Opening a report in real headless Chromium (Debian's chromium and chromedriver, driven by
selenium): what the page logged as errors, what it requested over the network, what each plot
holds, and a PNG screenshot. Skips, saying why, where Chromium or chromedriver is absent."""
from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("PARIO_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = os.environ.get("PARIO_CHROMEDRIVER") or shutil.which("chromedriver")
# No sandbox as root; no background networking, component updates, sync or first-run pages,
# which otherwise reach Google's hosts when Chromium starts.
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
         "--disable-extensions", "--hide-scrollbars", "--window-size=1240,1000"]

# Per plot: its traces (type, name, points with an x value) and the SVG points plotly drew.
PLOTS_JS = """
return Array.from(document.querySelectorAll('.js-plotly-plot')).map(function (gd) {
  return {
    id: gd.parentElement.id || gd.id,
    traces: (gd.data || []).map(function (t) {
      var xs = t.x || [], n = 0;
      for (var i = 0; i < xs.length; i++) { if (xs[i] !== null && xs[i] !== undefined) n++; }
      return {type: t.type || 'scatter', name: t.name || '', points: n, visible: t.visible !== false};
    }),
    svgPoints: gd.querySelectorAll('path.point').length,
    lines: gd.querySelectorAll('path.js-line').length,
    height: gd.getBoundingClientRect().height
  };
});
"""


def need_browser() -> None:
    if not CHROMIUM or not CHROMEDRIVER:
        pytest.skip("headless browser tests need Debian's chromium and chromium-driver "
                    "(scripts/setup.sh installs them as root; .ci/run does)")
    pytest.importorskip("selenium", reason="selenium is in the test extra: pip install -e .[test]")


@dataclass
class Loaded:
    url: str
    errors: list[str] = field(default_factory=list)       # SEVERE console entries and uncaught exceptions
    requests: list[str] = field(default_factory=list)     # every URL fetched but the page itself
    plots: list[dict[str, Any]] = field(default_factory=list)
    drawn: int = -1                                       # plots that finished drawing (data-plots-drawn)

    def plot(self, anchor: str) -> dict[str, Any]:
        found = [p for p in self.plots if p["id"] == anchor]
        assert found, f"no plot {anchor} in {[p['id'] for p in self.plots]}"
        return found[0]


class Browser:
    """One Chromium for a test module: `with Browser() as b: loaded = b.open(path, png)`."""

    def __enter__(self) -> Browser:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.profile_dir = tempfile.mkdtemp(prefix="pario-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in [*FLAGS, f"--user-data-dir={self.profile_dir}"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(120)
        self.driver.set_script_timeout(120)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.driver.quit()
        shutil.rmtree(self.profile_dir, ignore_errors=True)

    def open(self, path: Path, screenshot: Path | None = None, timeout: float = 120) -> Loaded:
        from selenium.webdriver.support.ui import WebDriverWait

        d = self.driver
        d.get("about:blank")
        d.get_log("browser")
        d.get_log("performance")     # drop what the browser did before the page
        url = Path(path).resolve().as_uri()
        d.get(url)
        WebDriverWait(d, timeout).until(
            lambda drv: drv.execute_script("return document.documentElement.getAttribute('data-plots-drawn')")
            is not None or drv.execute_script("return document.querySelectorAll('script.plot-data').length") == 0)
        out = Loaded(url=url)
        drawn = d.execute_script("return document.documentElement.getAttribute('data-plots-drawn')")
        out.drawn = int(drawn) if drawn is not None else 0
        out.plots = d.execute_script(PLOTS_JS)
        out.errors = [e["message"] for e in d.get_log("browser") if e.get("level") == "SEVERE"]
        for entry in d.get_log("performance"):
            msg = json.loads(entry["message"])["message"]
            if msg.get("method") == "Network.requestWillBeSent":
                req = msg["params"]["request"]["url"]
                if req != url and not req.startswith(("data:", "blob:", "about:")):
                    out.requests.append(req)
        if screenshot is not None:
            self.screenshot(screenshot)
        return out

    def screenshot(self, png: Path) -> None:
        """The whole page, not only the window."""
        d = self.driver
        metrics = d.execute_cdp_cmd("Page.getLayoutMetrics", {})
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        shot = d.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 30000), "scale": 1}})
        Path(png).write_bytes(base64.b64decode(shot["data"]))

    def element_png(self, anchor: str, png: Path) -> None:
        """One element (a plot, a table) as it is drawn, even below the window."""
        d = self.driver
        box = d.execute_script("var r = document.getElementById(arguments[0]).getBoundingClientRect();"
                               "return {x: r.left + window.scrollX, y: r.top + window.scrollY,"
                               " width: r.width, height: r.height};", anchor)
        shot = d.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                            "clip": {**box, "scale": 1}})
        Path(png).write_bytes(base64.b64decode(shot["data"]))

"""The bytes each file server moved during each phase, from the servers' own counters (CephFS: the
object servers' perf counters op_w_in_bytes and op_r_out_bytes, and their operation counts, read
on their admin sockets in milliseconds), read when the engine announces a phase (its `open` event,
before the ranks open) and when it reports the phase done (its `phase` event, after every rank
closed). A metadata phase has no `open` event: it counts from the previous reading (the end of the
case's previous phase, or its start), untimed steps between phases included (`from_last`). With
these and the servers' bandwidth caps, a phase's time is predicted by its placement: the busiest
server's bytes over its cap (pario.run.servers.predict).

Data a client still caches when a phase ends (a write without -e through ceph-fuse) reaches the
servers later: it is counted in the case's total, not in the phase; the record says how much."""
from __future__ import annotations

from typing import Any

from pario.platform import cephfs

Counters = dict[str, dict[str, int]]


class ServerSampler:
    """Fed the engine's progress events (beside settings.effective.OutputCollector, through Tee)."""

    def __init__(self, server_list: list[dict[str, Any]], conf: str | None = None, name: str = "client.admin"):
        self.server_list, self.conf, self.name = server_list, conf, name
        self.phases: dict[tuple[int, str, int], Counters] = {}
        self.cases: dict[int, Counters] = {}
        self.failed = False
        self._open: tuple[tuple[int, str, int], Counters] | None = None
        self._case: tuple[int, Counters] | None = None
        self.start = self._read()
        self._last = self.start           # the latest reading
        self.from_last: set[tuple[int, str, int]] = set()   # phases counted from the previous reading

    def _read(self) -> Counters | None:
        if self.failed:
            return None
        got = cephfs.counters(self.server_list, self.conf, self.name)
        if got is None:
            self.failed = True
        else:
            self._last = got
        return got

    def line(self, text: str) -> bool:
        return False

    def event(self, ev: dict[str, Any]) -> None:
        kind, case = ev.get("event"), ev.get("case")
        if kind not in ("open", "phase") or not isinstance(case, int) or self.failed:
            return
        before = self._last
        now = self._read()
        if now is None or before is None:
            return
        key = (case, str(ev.get("op")), int(ev.get("rep", 0)))
        if self._case is None or self._case[0] != case:  # a new case: from its first event on
            self._end_case(before)
            self._case = (case, before if kind == "phase" else now)
        if kind == "open":
            self._open = (key, now)
        elif self._open is not None and self._open[0] == key:
            self.phases[key] = cephfs.delta(self._open[1], now)
            self._open = None
        else:  # a phase without an open (the metadata workload): since the previous reading
            self.phases[key] = cephfs.delta(before, now)
            self.from_last.add(key)

    def _end_case(self, now: Counters) -> None:
        if self._case is not None:
            self.cases[self._case[0]] = cephfs.delta(self._case[1], now)

    def finish(self) -> None:
        """After the launch: the last case's total."""
        now = self._read()
        if now is not None:
            self._end_case(now)
            self._case = None


class Tee:
    """Two sinks of watchdog.run: each event goes to both; a line is the first one's if it takes it."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def line(self, text: str) -> bool:
        return bool(self.first.line(text)) or bool(self.second.line(text))

    def event(self, ev: dict[str, Any]) -> None:
        self.first.event(ev)
        self.second.event(ev)


def caps(server_list: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """{osd.N: {write, read}}: the bandwidth cap of each server that has one (bytes/s)."""
    out = {}
    for srv in server_list:
        got = {op: srv[f"cap_{op}_bps"] for op in ("write", "read") if srv.get(f"cap_{op}_bps")}
        if got:
            out[srv["name"]] = got
    return out


def predict(bytes_by_server: dict[str, int], cap_by_server: dict[str, int]) -> tuple[float, str] | None:
    """(seconds, server): the time the busiest server needs for its bytes at its cap; None without
    a cap for every server that moved bytes."""
    times = {}
    for srv, moved in bytes_by_server.items():
        if moved <= 0:
            continue
        cap = cap_by_server.get(srv)
        if not cap:
            return None
        times[srv] = moved / cap
    if not times:
        return None
    busiest = max(times, key=times.__getitem__)
    return times[busiest], busiest


def annotate(result: dict[str, Any], sampler: ServerSampler) -> None:
    """Write each phase's bytes per server (its op's direction), each case's totals, the caps and the
    predicted time into the result's cases (`servers` of a case and of a phase)."""
    if sampler.failed or sampler.start is None:
        return
    cap = caps(sampler.server_list)
    for case in result.get("cases") or []:
        index = case.get("index")
        total = sampler.cases.get(index)
        if total is None:
            continue
        rec: dict[str, Any] = {"means": cephfs.COUNTERS, "total": total, "servers": len(sampler.server_list)}
        if cap:
            rec["caps"] = cap
        case["servers"] = rec
        for ph in case.get("phases") or []:
            got = sampler.phases.get((index, str(ph.get("op")), int(ph.get("rep", 0))))
            if got is None:
                continue
            direction = "read" if ph.get("op") in ("read", "verify", "read_small") else "write"
            moved = {srv: v.get(direction, 0) for srv, v in got.items()}
            entry: dict[str, Any] = {"direction": direction, "bytes": moved,
                                     "ops": {srv: v.get(f"{direction}_ops", 0) for srv, v in got.items()}}
            if (index, str(ph.get("op")), int(ph.get("rep", 0))) in sampler.from_last:
                entry["since"] = "the case's previous phase (untimed steps between phases included)"
            pred = predict(moved, {s: c.get(direction, 0) for s, c in cap.items()}) if cap else None
            if pred:
                entry["predicted_s"], entry["busiest"] = round(pred[0], 4), pred[1]
            ph["servers"] = entry

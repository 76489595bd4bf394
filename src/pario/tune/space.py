"""What can be tuned for one case on this stack: a tree of knobs (a knob applies only under the values
of the knobs before it, e.g. ROMIO's romio_cb_write only under --io romio321 and collective calls),
the knobs left out and why, and the canonical form of a configuration, so that two configurations
the stack treats the same are measured once.

A configuration is {knob key: value}; the value DEFAULT sets nothing (the stack chooses). Keys are
settings keys (hints, mca.NAME, hdf5.KEY, ...) or the case's own keys (strategy, collective, odirect),
so that a winner renders through settings.render and through bench flags."""
from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Callable

from pario.model.tuning import Dropped
from pario.settings import Settings, knobs, view
from pario.settings.equivalence import canonical as settings_canonical
from pario.settings.equivalence import explain

DEFAULT = "default"
Config = dict[str, str]

CASE_KEYS = ("strategy", "collective", "odirect")   # knobs that change the case, not its settings
HINT_LAYERS = ("mpiio", "hdf5", "pnetcdf", "netcdf4")   # backends that open through MPI-IO with hints
ROMIO_DEFAULT_CB = 16 << 20      # cb_buffer_size defaults (adioi.h; OMPIO io_ompio_bytes_per_agg)
OMPIO_DEFAULT_CB = 32 << 20
SIZES = {"256k": 256 << 10, "1m": 1 << 20, "4m": 4 << 20, "16m": 16 << 20, "64m": 64 << 20}


@dataclass(frozen=True)
class Knob:
    key: str
    values: tuple[str, ...]          # values[0]: the default configuration's value
    kind: str                        # case | io | mca | hint | lib | layout
    when: Callable[[Config], bool] = lambda c: True   # applies under these values of earlier knobs
    doc: str = ""


@dataclass
class Context:
    """The facts a space is built from: the case as given, the run, the stack."""
    backend: str
    strategy: str                    # shared | fpp | nfiles:K | per-node | serial, '+agg' when aggregated
    collective: bool
    ops: tuple[str, ...]
    objective: str                   # write | read
    ranks: int
    xfer: int
    pattern: str = "segmented"
    view: bool = False
    segments: int = 1
    odirect: bool = False
    block: int = 0
    hosts: int = 1
    flavour: str = "openmpi"         # openmpi | mpich | intel | unknown
    impl: str = "ompio"              # the MPI-IO layer by default: ompio | romio | cray
    romio_component: str | None = "romio321"   # Open MPI's ROMIO io component, if there is one
    io_fixed: str | None = None      # --io given: the layer is not searched
    fs: str = "ext4"
    osts: int = 0                    # Lustre OST count (0: unknown or not Lustre)
    caps: frozenset[str] = frozenset()
    lib: dict[str, str] = field(default_factory=dict)   # the case's own library settings (--lib, lib = {...})

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["ops"], out["caps"] = list(self.ops), sorted(self.caps)
        return out

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Context:
        known = {k: v for k, v in doc.items() if k in cls.__dataclass_fields__}
        known["ops"], known["caps"] = tuple(known.get("ops") or ()), frozenset(known.get("caps") or ())
        return cls(**known)


def strategy_label(case: dict[str, Any]) -> str:
    strategy = {"pernode": "per-node"}.get(case.get("strategy", "shared"), case.get("strategy", "shared"))
    if strategy == "nfiles":
        strategy = f"nfiles:{case.get('nfiles', 1)}"
    return strategy + ("+agg" if case.get("aggregate") and strategy != "serial" else "")


@dataclass
class Space:
    ctx: Context
    knobs: list[Knob] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)

    # -- reading a configuration ---------------------------------------------------------------

    def get(self, config: Config, key: str) -> str:
        if key in config:
            return config[key]
        knob = self.knob(key)
        return knob.values[0] if knob else DEFAULT

    def knob(self, key: str) -> Knob | None:
        return next((k for k in self.knobs if k.key == key), None)

    def strategy(self, config: Config) -> str:
        return self.get(config, "strategy") if self.knob("strategy") else self.ctx.strategy

    def collective(self, config: Config) -> bool:
        s = self.strategy(config)
        if s.endswith("+agg") or s == "serial":
            return False
        return self.get(config, "collective") == "true" if self.knob("collective") else self.ctx.collective

    def impl(self, config: Config) -> str:
        io = self.get(config, "mca.io") if self.knob("mca.io") else DEFAULT
        if io == DEFAULT:
            io = self.ctx.io_fixed or DEFAULT
        if io == DEFAULT:
            return self.ctx.impl
        return "romio" if io.startswith(("romio", "^ompio")) else "ompio"

    def file_group(self, config: Config) -> tuple[int, int]:
        """(ranks, hosts) that open one file: cb_nodes and cb_config_list are clipped to these."""
        s = self.strategy(config)
        ranks, hosts = self.ctx.ranks, max(self.ctx.hosts, 1)
        if s.endswith("+agg") or s in ("fpp", "serial"):
            return 1, 1
        if s.startswith("nfiles:"):
            k = int(s.split(":")[1].split("+")[0])
            per = -(-ranks // k)
            return per, min(hosts, per)
        if s == "per-node":
            return -(-ranks // hosts), 1
        return ranks, hosts

    def call_bytes(self, config: Config) -> int:
        """Bytes one collective call moves in one file: what a collective buffer must hold."""
        return self.ctx.xfer * self.file_group(config)[0]

    def interleaved(self) -> bool:
        """Whether ranks' requests of one collective call interleave in the file (ROMIO's test in
        ad_write_coll.c): a segmented pattern writes each rank's extent after the previous rank's."""
        return self.ctx.pattern != "segmented" or self.ctx.view

    def two_phase(self, config: Config) -> bool:
        """Whether collective buffering (two-phase I/O) runs, so that aggregator knobs act."""
        if not self.collective(config) or self.file_group(config)[0] <= 1:
            return False  # independent calls, or one rank per file: nothing to aggregate
        if self.impl(config) == "ompio":
            return self.get(config, "mca.fcoll") != "individual"
        mode = self.get(config, f"romio_cb_{self.ctx.objective}")
        # automatic: two-phase only when the ranks' requests interleave (ad_write_coll.c, ad_read_coll.c)
        return mode == "enable" or (mode == DEFAULT and self.interleaved())

    def applies(self, knob: Knob, config: Config) -> bool:
        return knob.when(config)

    # -- the search ---------------------------------------------------------------------------

    def default(self) -> Config:
        return self.effective({k.key: k.values[0] for k in self.knobs})

    def effective(self, config: Config) -> Config:
        """The knobs that apply under config, in order (the others are inert and left out)."""
        out: Config = {}
        for knob in self.knobs:  # a knob's condition reads only the knobs before it
            if knob.when(out):
                out[knob.key] = config.get(knob.key, knob.values[0])
        return out

    def suggest(self, trial) -> Config:
        """Define-by-run: an optuna trial picks each knob that applies under the ones before it."""
        config: Config = {}
        for knob in self.knobs:
            if knob.when(config):
                config[knob.key] = str(trial.suggest_categorical(knob.key, list(knob.values)))
        return config

    def grid(self) -> list[Config]:
        """Every configuration of the space, one per canonical form (the first, i.e. the one with
        the most default values, stands for its class)."""
        seen: dict[str, Config] = {}
        for config in self._walk(0, {}):
            seen.setdefault(self.canonical(config), config)
        return list(seen.values())

    def _walk(self, i: int, config: Config) -> Iterator[Config]:
        if i == len(self.knobs):
            yield dict(config)
            return
        knob = self.knobs[i]
        if not knob.when(config):
            yield from self._walk(i + 1, config)
            return
        for value in knob.values:
            config[knob.key] = value
            yield from self._walk(i + 1, config)
            del config[knob.key]

    def values(self) -> dict[str, list[str]]:
        return {k.key: list(k.values) for k in self.knobs}

    # -- what the stack does with a configuration ------------------------------------------------

    def settings_of(self, config: Config) -> Settings:
        """The settings part of a configuration (hints, MCA parameters, library knobs)."""
        s = Settings()
        for key, value in self.effective(config).items():
            if value == DEFAULT or key in CASE_KEYS or key == "mca.io":
                continue
            head, _, rest = key.partition(".")
            if head == "mca":
                s.mca[rest] = value
            elif head == "ceph" and rest:  # the layout the files are created with (CephFS's words)
                if not s.layout:
                    s.layout.append({})
                s.layout[0][knobs.CEPH_LAYOUT.get(rest, rest)] = value
            elif rest and head in ("hdf5", "pnetcdf", "netcdf4", "adios2"):
                s.lib.setdefault(head, {})[rest] = value
            else:
                s.hints[key] = value
        return s

    def stack_view(self, config: Config) -> dict[str, Any]:
        ranks, hosts = self.file_group(config)
        return view(impl=self.impl(config), fs=self.ctx.fs, ranks=ranks, hosts=hosts, ops=list(self.ctx.ops))

    def canonical(self, config: Config) -> str:
        """Equal strings for configurations the stack treats the same: inert knobs left out, the
        settings rules of settings.equivalence, and two rules about collective buffers."""
        eff = self.effective(config)
        settings = self.settings_of(eff)
        ranks, _ = self.file_group(eff)
        cfg = settings.hints.get("cb_config_list")
        if cfg and cfg.startswith("*:") and cfg[2:].isdigit() and int(cfg[2:]) >= ranks:
            # more aggregators per host than ranks of a host open the file: all of them (ad_open.c)
            settings.hints["cb_config_list"] = "*:*" if ranks > 1 else "*:1"
        size = settings.hints.get("cb_buffer_size")
        if size is not None:
            default = OMPIO_DEFAULT_CB if self.impl(eff) == "ompio" else ROMIO_DEFAULT_CB
            call = self.call_bytes(eff)
            if int(size) >= call and default >= call:
                # one round per call either way (ad_write_coll.c: ntimes = ceil(domain / cb_buffer_size))
                del settings.hints["cb_buffer_size"]
        settings = settings_canonical(settings, self.stack_view(eff))
        case = {k: eff[k] for k in CASE_KEYS if k in eff}
        case["collective"] = str(self.collective(eff)).lower()
        case["strategy"] = self.strategy(eff)
        return json.dumps({"case": case, "impl": self.impl(eff), "settings": settings.to_dict()}, sort_keys=True)

    def ignored(self, key: str, value: str, config: Config) -> str | None:
        """Why settings.equivalence says the stack ignores key=value under config (None: it acts)."""
        if key in CASE_KEYS or "." in key:
            return None
        trial = self.settings_of(config)
        trial.hints[key] = value
        _, applied = explain(trial, self.stack_view(config))
        for a in applied:
            if a.key == key and a.after is None and a.rule != "default":
                return a.reason()
        return None

"""Rows of the bad-input table (bad_inputs.py) for `pario settings`, hints files and the results
store: every hint kind with the values an MPI would misread, every dialect with garbage."""
from __future__ import annotations

# Values of a number-valued hint that ROMIO's atoi reads as another number, or that no MPI takes.
MISREAD = [("16mb", "'16mb' is read as 16 by the MPI"), ("1e6", "is read as 1 by the MPI (ROMIO and OMPIO parse "
           "integers with atoi); write 1000000"), ("0x10", "'0x10' is read as 0 by the MPI"),
           ("4k", "'4k' is read as 4 by the MPI (ROMIO and OMPIO parse integers with atoi); write 4096"),
           ("two", "'two' is read as 0 by the MPI"), ("1.5", "'1.5' is read as 1 by the MPI"),
           ("99999999999", "out of range"),
           ("-5", "out of range"), ("", "needs a value")]
# What `--set` (pario's syntax: sizes with k/m/g for byte counts, choices in any case) says instead; None:
# accepted there.
PARIO_SET = {"16mb": None, "4k": None, "Enable": None, "1e6": "--set", "0x10": "--set", "1.5": "--set", "two": "--set"}
NUMBER_HINTS = ["cb_buffer_size", "cb_nodes", "ind_rd_buffer_size", "striping_factor", "striping_unit",
                "romio_cb_ds_threshold", "cray_cb_write_lock_mode"]
CHOICE_HINTS = [("romio_cb_write", "maybe"), ("romio_cb_write", "Enable"), ("romio_no_indep_rw", "yes"),
                ("romio_ds_read", "1"), ("collective_buffering", "TRUE-ish"), ("direct_io", "on")]


def _hint_values() -> list[tuple[str, str, str]]:
    out = []
    for name in NUMBER_HINTS:
        for value, says in MISREAD:
            if name == "striping_factor" and value == "-5":
                says = "from -1 to"
            out.append((name, value, says))
    out += [(n, v, "must be one of" if v != "Enable" else "spelled enable") for n, v in CHOICE_HINTS]
    out += [("cb_config_list", "x" * 300, "at most 255"), ("romio_filesystem_type", "ufs", "reported by ROMIO"),
            ("cb_nodse", "4", "did you mean cb_nodes"), ("x" * 70, "1", "at most 63"),
            ("cb_nodes", "1\x002", "control character")]
    return out


def settings_rows() -> list[dict]:
    rows: list[dict] = []
    for name, value, says in _hint_values():
        # --set is pario's own syntax (16m and 4k are sizes pario converts); what it refuses too:
        render_says = PARIO_SET.get(value, says)
        if render_says is not None:
            rows.append({"id": f"settings render --set {name[:30]}={value[:20]!r}",
                         "argv": ["settings", "render", "--set", f"{name}={value}"], "exit": 2,
                         "says": render_says if value else "KEY=VALUE"})
        # the same value in a ROMIO hints file: settings check and bench --hints-file agree on it
        if "\x00" not in value and len(name) < 64:
            line = f"{name} {value}\n" if value else f"{name}\n"
            rows.append({"id": f"settings check: hints file {name[:30]} {value[:20]!r}",
                         "argv": ["settings", "check", "hints.txt", "--mpirun", "{mpirun}"],
                         "files": {"hints.txt": line}, "exit": 1, "stream": "stdout",
                         "says": says if value else "expected 'key value'"})
            rows.append({"id": f"bench --hints-file {name[:30]} {value[:20]!r}",
                         "argv": ["bench", "-a", "mpiio", "-w", "--hints-file", "hints.txt", "--no-probe"],
                         "files": {"hints.txt": line}, "exit": 2,
                         "says": says if value else "expected 'key value'"})
    for key, says in [("mca.io_ompio_bytes_per_agg=lots", "is not a size"), ("mca.fcoll=quick", "must be one of"),
                      ("mca.io_ompio_grouping_option=9", "out of range"), ("mca.bogus=1", "unknown setting"),
                      ("lustre.stripe_size=100k", "64 KiB"), ("lustre.stripe_count=-2", "out of range"),
                      ("lustre.1.stripe_count=4", "component 0 is empty"), ("lustre.extent_end=soon", "eof"),
                      ("hdf5.alignment=0", "out of range"), ("hdf5.chunk_opt=two", "must be one of"),
                      ("adios2.NumAggregators=0", "out of range"), ("adios2.AsyncWrite=maybe", "true or false"),
                      ("adios2.GrowthFactor=nan", "needs a number"), ("adios2.Bogus=1", "unknown setting"),
                      ("pnetcdf.mode=xput", "must be one of"), ("novalue", "KEY=VALUE"), ("=1", "KEY=VALUE")]:
        rows.append({"id": f"settings render --set {key}", "argv": ["settings", "render", "--set", key],
                     "exit": 2, "says": says})
    for argv, says in [(["settings", "render"], "no settings given"),
                       (["settings", "render", "--dialect", "", "--set", "cb_nodes=2"], "must be one of"),
                       (["settings", "render", "--dialect", "klingon", "--set", "cb_nodes=2"], "must be one of"),
                       (["settings", "render", "--set", "cb_nodes=2", "--path", ""], "needs a value"),
                       (["settings", "render", "--from", ""], "needs a value"),
                       (["settings", "render", "--from", "absent.txt"], "does not exist"),
                       (["settings", "render", "--from", "/dev/zero"], "not a regular file"),
                       (["settings", "check", "absent.txt"], "does not exist"),
                       (["settings", "check", ""], "needs a value"),
                       (["settings", "check", "/dev/zero"], "not a regular file"),
                       (["settings", "check", "/tmp"], "is a directory"),
                       (["settings", "check", "empty.txt", "--ranks", "0"], "argument --ranks"),
                       (["settings", "check", "empty.txt", "--hosts", "0"], "argument --hosts"),
                       (["settings", "check", "empty.txt", "--hosts", "-2"], "argument --hosts"),
                       (["settings", "check", "empty.txt", "--hosts", "3", "--ranks", "2"], "every host runs"),
                       (["settings", "check", "empty.txt", "--io", "romio999"], "argument --io"),
                       (["settings", "check", "ok.txt", "--mpirun", "/bin/false"], "not an MPI launcher"),
                       (["settings", "check", "ok.txt", "--mpirun", "/no/mpirun"], "not found"),
                       (["settings", "bogus"], "invalid choice"),
                       (["settings", "keys", "extra"], "unrecognized arguments")]:
        rows.append({"id": " ".join(a or "''" for a in argv), "argv": argv,
                     "files": {"empty.txt": "", "ok.txt": "cb_nodes 2\n"}, "exit": 2, "says": says})
    garbage = [
        ("json not an object", "[1, 2]", "unknown setting '[1,'"), ("json broken", "{ not json", "not valid JSON"),
        ("json nested value", '{"cb_nodes": {"a": 1}}', "not a dict"),
        ("json null value", '{"cb_nodes": null}', "null"),
        ("json deep", "{\"a\": " + "[" * 5000 + "]" * 5000 + "}", "levels deep"),
        ("json requested not an object", '{"hints": {"requested": 5}}', "not a JSON object"),
        ("xml deep", "<adios-config>" + "<a>" * 10000 + "</a>" * 10000 + "</adios-config>", "nest more than"),
        ("xml not adios", "<config><io/></config>", "root element is <config>"),
        ("xml broken", "<adios-config><io>", "not well-formed"),
        ("xml entity", "<!DOCTYPE x [<!ENTITY a 'b'>]><adios-config/>", "DOCTYPE"),
        ("xml parameter without key", "<adios-config><io><engine><parameter value='1'/></engine></io></adios-config>",
         "needs key= and value="),
        ("xml bad value", "<adios-config><io name='x'><engine type='BP5'><parameter key='NumAggregators' value='-1'/>"
         "</engine></io></adios-config>", "out of range"),
        ("hdf5 garbage", "H5Pset_ garbage\nmore garbage\n", "is not an HDF5 property-list call"),
        ("pnetcdf garbage", "export PNETCDF_HINTS='nc_var_align_size=1\nrm -rf /\n", "quote is not closed"),
        ("pnetcdf other lines", "export PNETCDF_HINTS=nc_var_align_size=1\necho hi\n", "is not `export PNETCDF_HINTS"),
        ("ompi unclosed quote", "--mca io 'ompio", "quote is not closed"),
        ("ompi stray word", "--mca io ompio stray", "is not part of --mca"),
        ("ompi env unclosed quote", "export OMPI_MCA_io='ompio", "quote is not closed"),
        ("ompi env bad line", "export OMPI_MCA_io=ompio\nexport PATH=/x\n", "is not OMPI_MCA_NAME=VALUE"),
        ("cray unclosed quote", "export MPICH_MPIIO_HINTS=\"*:cb_nodes=2", "quote is not closed"),
        ("cray bad value", "export MPICH_MPIIO_HINTS=*:cb_nodes=16mb", "'16mb' is read as 16"),
        ("lfs bare", "lfs setstripe -c", "is not understood"), ("lfs bad size", "lfs setstripe -S 100k f", "64 KiB"),
        ("romio binary", {"hex": "ff00ff00"}, "not UTF-8"), ("romio NUL", "cb_nodes 2\x00\n", "NUL byte"),
        ("romio 100,000 lines", {"repeat": ["cb_nodes 2\n", 100000]}, "more than the"),
        ("romio one word", "cb_nodes\n", "expected 'key value'"), ("romio key=value", "cb_nodes=2\n", "key value"),
    ]
    for name, content, says in garbage:
        exit_code = 2 if says in ("not valid JSON", "levels deep", "nest more than", "root element is <config>",
                                  "not well-formed", "DOCTYPE", "quote is not closed", "not UTF-8", "NUL byte",
                                  "more than the", "not a JSON object") else None
        rows.append({"id": f"settings render --from: {name}", "argv": ["settings", "render", "--from", "s.txt"],
                     "files": {"s.txt": content}, "exit": 2, "says": says})
        rows.append({"id": f"settings check: {name}", "argv": ["settings", "check", "s.txt", "--mpirun", "{mpirun}"],
                     "files": {"s.txt": content}, "exit": exit_code or 1, "says": says,
                     **({} if exit_code else {"stream": "stdout"})})
    return rows


def hints_file_rows() -> list[dict]:
    bench = ["bench", "-a", "mpiio", "-w", "--no-probe", "--hints-file", "h.txt"]
    rows = []
    for name, content, says in [
        ("missing", None, "does not exist"), ("/dev/zero", "/dev/zero", "not a regular file"),
        ("a directory", {"dir": True}, "is a directory"), ("a FIFO", {"fifo": True}, "not a regular file"),
        ("binary", {"hex": "fffe00"}, "not UTF-8"), ("a NUL byte", "cb_nodes 2\x00\n", "NUL byte"),
        ("100,000 lines", {"repeat": ["cb_nodes 2\n", 100000]}, "more than the"),
        ("100,000 comment lines", {"repeat": ["# tuned\n", 100000]}, "more than the"),
        ("a 2 MB line", {"repeat": ["x", 2 << 20]}, "more than the"),
        ("65 hints", "".join(f"romio_pvfs2_dtype_{i} x\n" for i in range(65)), "at most 64"),
        ("key=value", "cb_nodes=2\n", "expected 'key value'"), ("a key alone", "cb_nodes\n", "expected 'key value'"),
        ("an unknown hint", "romio_cb_wirte enable\n", "did you mean romio_cb_write"),
        ("a hint reported by ROMIO", "romio_aggregator_list 0\n", "reported by ROMIO"),
        ("a value over 255 characters", "cb_config_list " + "h" * 300 + "\n", "at most 255"),
    ]:
        path = content if content == "/dev/zero" else "h.txt"
        files = {} if content is None or content == "/dev/zero" else {"h.txt": content}
        argv = [path if a == "h.txt" else a for a in bench]
        rows.append({"id": f"bench --hints-file: {name}", "argv": argv, "files": files, "exit": 2, "says": says})
    return rows


def store_rows() -> list[dict]:
    """The fixture store (test_bad_inputs.py) holds run 1 (complete, files kept), 2 (failed), 3 (a result
    that is a list), 4 (a spec that is not JSON), 5 (a phase whose bandwidth is a string); tuning sessions
    1 (not JSON), 2 (a list) and 3 (trials a string)."""
    rows = []
    for argv, says in [
        (["results", "show", "0"], "run id must be a number"), (["results", "show", "-1"], "run id must be a number"),
        (["results", "show", "abc"], "run id must be a number"), (["results", "show", ""], "run id must be"),
        (["results", "show", "#x"], "run id must be"), (["results", "show", "99"], "no run 99"),
        (["results", "show", "1" * 30], "run id must be"), (["results", "show", "٣"], "run id must be"),
        (["results", "show", "3"], "result is a list"), (["results", "show", "4"], "its spec is not valid JSON"),
        (["results", "show", "5"], "bw_mib is a string"), (["results", "compare", "1", "4"], "not valid JSON"),
        (["results", "compare", "1", "abc"], "run id must be"),
        (["results", "compare", "1"], "missing B (run id B)"),
        (["results", "--limit", "0"], "argument --limit"), (["results", "--limit", "-1"], "argument --limit"),
        (["results", "--limit", "x"], "argument --limit"), (["results", "--db", ""], "argument --db"),
        (["results", "--db", "garbage.db"], "not a database"), (["results", "--db", "dir"], "no results store at"),
        (["results", "--db", "file/runs.db"], "no results store at"),
        (["results", "--db", "empty.db"], "is an empty file"), (["report", "--db", "empty.db"], "is an empty file"),
        (["tune", "--list", "--db", "empty.db"], "is an empty file"),
        (["results", "import-ior", ""], "needs a value"), (["results", "bogus"], "invalid choice"),
        (["bench", "--reuse", "3", "-r"], "result is a list"), (["bench", "--reuse", "2", "-r"], "failed bench run"),
        (["bench", "--reuse", "99", "-r"], "no run 99"), (["bench", "--reuse", "0", "-r"], "argument --reuse"),
        (["bench", "--reuse", "x", "-r"], "argument --reuse"), (["bench", "--reuse", "1", "-w"], "drop -w"),
        (["bench", "--reuse", "1", "-r", "-t", "1m"], "drop --transfer"), (["bench", "--reuse", "1", "-r", "-G", "3"],
                                                                              "drop -G"),
        (["bench", "--reuse", "1", "-r", "-n", "3"], "read them with -n 2"),
        (["bench", "--reuse", "1", "-r", "--suite", "layers"], "drop --config/--suite"),
        (["bench", "--reuse", "4", "-r"], "not valid JSON"), (["bench", "--reuse", "5", "-r"], "bw_mib is a string"),
        (["report", "--tune", "1"], "its document is not valid JSON"), (["report", "--tune", "2"], "is a list"),
        (["report", "--tune", "3"], "trials is a string"), (["report", "--tune", "99"], "no tuning session 99"),
        (["report", "--tune", "last"], "give a tuning session number"),
        (["report", "--tune", "#x"], "give a tuning session number"),
        (["tune", "--resume", "1"], "its document is not valid JSON"), (["tune", "--resume", "2"], "is a list"),
        (["tune", "--resume", "3"], "trials is a string"), (["tune", "--resume", "99"], "no tuning session 99"),
    ]:
        rows.append({"id": " ".join(a or "''" for a in argv), "argv": argv,
                     "files": {"garbage.db": "this is not SQLite\n" * 10, "dir": {"dir": True}, "file": "x",
                               "empty.db": ""},
                     "exit": 2, "says": says})
    return rows

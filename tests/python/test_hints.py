"""The hint catalogue covers the reference tables; hints files parse like ROMIO's."""
import re
from pathlib import Path

import pytest

from pario.model.errors import ParioError
from pario.plan.cases import read_hints_file
from pario.settings import hints

ANCHORS = Path("/work/shared/reference/anchors-tuning.md")


def _section(text, start, end):
    return text[text.index(start):text.index(end)]


@pytest.mark.skipif(not ANCHORS.exists(), reason="reference notes not on this machine")
def test_every_romio_hint_of_the_reference_is_known():
    table = _section(ANCHORS.read_text(), "## (a) ROMIO hints", "ROMIO environment controls")
    names, prev = set(), ""
    for row in table.splitlines():
        if not row.startswith("| `"):
            continue
        cell = row.split("|")[1]
        for name in re.findall(r"`([^`]+)`", cell):
            m = re.match(r"(\w+?)\{([^}]*)\}(.*)", name)
            if m:  # romio_pvfs2_{distribution_name,dtype_*,...}
                names |= {m.group(1) + part.strip() + m.group(3) for part in m.group(2).split(",")}
            elif name.startswith("_"):  # `romio_lustre_cb_lock_ahead_write` / `_read`
                names.add(prev.rsplit("_", 1)[0] + name)
            else:
                names.add(name)
            prev = name
    names = {n.replace("*", "x") for n in names if n}
    missing = sorted(n for n in names if hints.lookup(n) is None)
    assert not missing, f"ROMIO hints of anchors-tuning.md (a) missing from the catalogue: {missing}"


@pytest.mark.skipif(not ANCHORS.exists(), reason="reference notes not on this machine")
def test_ompio_and_cray_keys_are_known():
    text = ANCHORS.read_text()
    ompio = _section(text, "## (b) Open MPI OMPIO", "MCA parameters (")
    for row in ompio.splitlines():
        if row.startswith("| `") or row.startswith("| GPFS"):
            for name in re.findall(r"`([A-Za-z_]+)`", row.split("|")[1]):
                assert hints.lookup(name), name
    for name in ("cray_cb_write_lock_mode", "cray_cb_nodes_multiplier", "cb_align", "direct_io",
                 "aggregator_placement_stride", "abort_on_rw_error"):
        assert hints.CRAY in hints.lookup(name).impls


def test_rows_are_data():
    row = hints.lookup("romio_cb_write")
    assert row.kind == "choice" and "enable" in row.choices and hints.ROMIO in row.impls
    assert hints.OMPIO not in row.impls, "ompio ignores romio_* keys"
    assert hints.lookup("stripe_size").alias_of == "striping_unit"
    assert hints.lookup("romio_pvfs2_listio_read") is not None  # a family member


def test_check_values_and_did_you_mean():
    hints.check("cb_buffer_size", "4194304")
    assert hints.check("romio_cb_read", "ENABLE") == "enable"  # ROMIO compares with "enable" and "ENABLE"
    with pytest.raises(ParioError, match="spelled enable.*strcmp"):
        hints.check("romio_cb_read", "Enable")  # ROMIO would ignore it: strcmp, not strcasecmp
    with pytest.raises(ParioError, match="did you mean cb_buffer_size"):
        hints.check("cb_bufer_size", "1")
    with pytest.raises(ParioError, match="is read as 0 by the MPI"):
        hints.check("cb_nodes", "two")
    with pytest.raises(ParioError, match="one of enable, disable, automatic"):
        hints.check("romio_ds_write", "on")
    with pytest.raises(ParioError, match="reported by ROMIO"):
        hints.check("romio_filesystem_type", "x")


def test_parse_pair():
    assert hints.parse_pair("cb_nodes=4") == ("cb_nodes", "4")
    with pytest.raises(ParioError, match="NAME=VALUE"):
        hints.parse_pair("cb_nodes")


def test_hints_file(tmp_path):
    f = tmp_path / "romio.txt"
    f.write_text("# tuned for Lustre\ncb_buffer_size 4194304\n\n"
                 "romio_cb_write   enable  # always\ncb_config_list *:2\n")
    assert read_hints_file(str(f)) == {"cb_buffer_size": "4194304", "romio_cb_write": "enable",
                                       "cb_config_list": "*:2"}
    f.write_text("cb_nodes 2\nromio_cb_write\n")
    with pytest.raises(ParioError, match=re.escape(f"{f}:2: expected 'key value'")):
        read_hints_file(str(f))
    f.write_text("cb_nodes=2\n")
    with pytest.raises(ParioError, match=":1:"):
        read_hints_file(str(f))
    f.write_text("\n\nromio_cb_wirte enable\n")
    with pytest.raises(ParioError, match=r":3: unknown MPI-IO hint 'romio_cb_wirte' \(did you mean romio_cb_write\?\)"):
        read_hints_file(str(f))
    with pytest.raises(ParioError, match="does not exist"):
        read_hints_file(str(tmp_path / "absent"))
    f.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ParioError, match="is not UTF-8 text"):
        read_hints_file(str(f))
    f.write_text("cb_nodes 2\n" * 10001)
    with pytest.raises(ParioError, match="more than the 10000"):
        read_hints_file(str(f))
    with pytest.raises(ParioError, match="not a regular file"):
        read_hints_file("/dev/zero")


def test_the_one_direction_hints_are_rows_of_the_catalogue():
    from pario.settings import hints
    assert set(hints.DIRECTION) <= set(hints.CATALOGUE)
    assert {hints.DIRECTION[k] for k in ("romio_cb_read", "ind_rd_buffer_size")} == {"read"}
    assert {k for k, way in hints.DIRECTION.items() if way == "write"} >= {"romio_cb_write", "romio_ds_write"}

"""Each mechanism of pario predict with its own small numbers."""
import pytest

from pario.predict import mechanisms as m


@pytest.mark.parametrize("cb_nodes, stripes, co, want", [
    (8, 4, 1, 4),      # more aggregators than stripes: one per OST (co_ratio 1)
    (8, 4, 2, 8),      # co_ratio 2: two per OST
    (42, 20, 3, 40),   # ROMIO's own example: a multiple of the stripe count
    (8, 60, 1, 6),     # ROMIO's own example: fewer than the stripes, a divisor (60 / 10)
    (16, 1, 1, 1),     # stripe count 1: one aggregator whatever cb_nodes says
    (3, 7, 1, 1),      # 7 is prime: no divisor under 3
])
def test_romio_lustre_aggregators(cb_nodes, stripes, co, want):
    assert m.romio_lustre_aggregators(cb_nodes, stripes, co) == want


def test_config_list_aggregators_one_per_node_and_clipped():
    assert m.config_list_aggregators(32, 16, 1) == 32          # GPFS/generic default *:1
    assert m.config_list_aggregators(16, 16, 4) == 64          # *:4
    assert m.config_list_aggregators(2, 2, 4) == 4             # at most the ranks of a node
    assert m.config_list_aggregators(16, 16, 2, cb_nodes=8) == 8


def test_cray_aggregators_stripes_times_multiplier():
    assert m.cray_aggregators(12, 4, 2048) == 48
    assert m.cray_aggregators(12, 16, 100) == 100


def test_active_servers_shared_file_many_files_and_wide():
    assert m.active_servers(48, 4, 1) == 4          # one file: its stripe count
    assert m.active_servers(12, 20, 1) == 12        # not more than the servers
    assert m.active_servers(48, 1, 10) == 10        # ten files of one stripe each
    assert m.active_servers(48, 1, 500) == 48
    assert m.active_servers(8, 1, 1, wide=True) == 8  # GPFS: every server
    assert m.server_load_share(4, 6) == pytest.approx(2 / 6)  # 6 objects on 4 servers: the busiest has 2


def test_writers_per_lock_unit():
    assert m.writers_per_lock_unit(1 << 20, 8 << 20, 512, True) == 8     # LRZ: 1 MiB in 8 MiB blocks
    assert m.writers_per_lock_unit(1 << 20, 8 << 20, 4, True) == 4       # not more than the ranks
    assert m.writers_per_lock_unit(256 << 20, 8 << 20, 512, True) == 1   # whole blocks
    assert m.writers_per_lock_unit(3 << 20, 2 << 20, 8, True) == 2       # straddling boundaries
    assert m.writers_per_lock_unit(1 << 20, 8 << 20, 512, False) == 1    # contiguous regions


def test_lock_time_is_spread_over_objects():
    assert m.lock_time(100, 0.01) == pytest.approx(1.0)
    assert m.lock_time(100, 0.01, objects=4) == pytest.approx(0.25)
    assert m.lock_time(0, 0.01) == 0


def test_exchange_time_network_and_memory():
    # 4 nodes, 4 GiB: 3/4 crosses the network, 4 nodes' links of 1 GiB/s
    assert m.exchange_time(4 * 2**30, 4, 4, 2**30, 8 * 2**30) == pytest.approx(0.75)
    # one aggregator node receives it all
    assert m.exchange_time(4 * 2**30, 4, 1, 2**30, 8 * 2**30) == pytest.approx(3.0)
    assert m.exchange_time(4 * 2**30, 1, 1, 2**30, 8 * 2**30) == pytest.approx(0.5)


def test_rounds_calls_and_buffering():
    assert m.rounds(64 << 20, 16 << 20) == 4
    assert m.rounds(1, 16 << 20) == 1
    assert m.call_time(2_083_634, 0.5e-3) == pytest.approx(1041.817)
    assert m.buffered_calls(2_083_634, 1 << 30, 64 << 20) == 16
    assert m.buffered_calls(10, 1 << 30, 0) == 10


def test_metadata_per_file_and_per_stripe():
    assert m.metadata_serial(100, 1, 0.01, 0.001) == pytest.approx(1.1)
    assert m.metadata_serial(100, 48, 0.01, 0.001) == pytest.approx(5.8)
    # 1000 files at 100 files/s; 3 more objects each over 4 servers at 1 ms
    assert m.metadata_concurrent(1000, 4, 48, 100.0, 1e-3) == pytest.approx(10 + 3000 * 1e-3 / 4)


def test_shared_cores_of_an_oversubscribed_node():
    assert m.shared_cores(2, 2) == 1.0
    assert m.shared_cores(4, 2) == 0.5
    assert m.shared_cores(64, None) == 1.0


def test_the_dirty_freerun_ceiling_is_halfway_between_the_background_and_dirty_thresholds():
    gib = 1 << 30
    assert m.dirty_freerun(20 * gib, 20, 10) == 3 * gib                 # (4 GiB + 2 GiB) / 2
    assert m.dirty_freerun(20 * gib, 20, 10, limit_bytes=gib) == gib    # background above dirty: capped
    assert m.page_cache_absorbs(128 << 20, 3 * gib, flushed=False)
    assert not m.page_cache_absorbs(128 << 20, 3 * gib, flushed=True)   # fsync: the device paces them
    assert not m.page_cache_absorbs(4 * gib, 3 * gib, flushed=False)    # beyond it: throttled
    assert not m.page_cache_absorbs(128 << 20, None, flushed=False)     # nobody stated it


def test_the_writers_of_one_local_file_copy_in_turn():
    mib = 1 << 20
    alone = m.writers_in_turn(64 * mib, 64, 1 << 30, 1e-6)
    assert alone == pytest.approx(64 / 1024 + 64e-6)
    # three ranks writing 192 MiB into one file take three times one rank's 64 MiB: one copy at a time
    assert m.writers_in_turn(192 * mib, 192, 1 << 30, 1e-6) == pytest.approx(3 * alone)

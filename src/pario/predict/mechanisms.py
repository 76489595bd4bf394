"""The mechanisms of `pario predict`, one small pure function each: who writes (ROMIO's aggregator
rules on Lustre and GPFS, Cray's multiplier), where the data lands (active servers), what the
writers share (lock units), and what each step costs (the two-phase exchange, per-call latency,
collective calls, metadata per file and per stripe, buffering). Each is tested with its own small
numbers (tests/python/test_predict_mechanisms.py); predict/model.py adds them up."""
from __future__ import annotations

import math


def romio_lustre_aggregators(cb_nodes: int, stripe_count: int, co_ratio: int = 1) -> int:
    """ROMIO's Lustre collective-write aggregators (ad_lustre_aggregate.c): with cb_nodes at least the
    stripe count, stripe_count * min(cb_nodes // stripe_count, co_ratio), so that each OST gets at
    most co_ratio clients; below it, a divisor of the stripe count no larger than cb_nodes."""
    cb_nodes, stripe_count = max(1, cb_nodes), max(1, stripe_count)
    if cb_nodes >= stripe_count:
        return stripe_count * min(cb_nodes // stripe_count, max(1, co_ratio))
    found, divisor = 1, 2
    while stripe_count >= divisor * divisor:
        if stripe_count % divisor == 0:
            if stripe_count // divisor <= cb_nodes:
                return stripe_count // divisor
            if divisor <= cb_nodes:
                found = divisor
        divisor += 1
    return found


def config_list_aggregators(nodes: int, ranks_per_node: int, per_node: int, cb_nodes: int | None = None) -> int:
    """ROMIO's generic (and GPFS) aggregators: cb_config_list '*:per_node' on every node (the default
    '*:1': one per node), at most the ranks of a node, clipped by cb_nodes."""
    count = max(1, nodes) * max(1, min(per_node, ranks_per_node))
    return max(1, min(count, cb_nodes)) if cb_nodes else count


def cray_aggregators(stripe_count: int, multiplier: int, ranks: int) -> int:
    """HPE Cray MPICH: aggregators = stripe count x cray_cb_nodes_multiplier, at most the ranks."""
    return max(1, min(ranks, max(1, stripe_count) * max(1, multiplier)))


def active_servers(servers: int, stripe_count: int, files: int, wide: bool = False) -> int:
    """Servers that carry the data. A file uses min(stripe count, servers) of them; many files of
    stripe_count objects each spread over the servers (the allocator balances them), so together
    they reach min(files x stripe count, servers). `wide`: the file system stripes every file over
    every server (GPFS)."""
    servers = max(1, servers)
    if wide:
        return servers
    return max(1, min(servers, max(1, files) * max(1, stripe_count)))


def server_load_share(servers: int, objects: int) -> float:
    """The busiest server's share of `objects` equal objects placed round-robin over `servers`:
    ceil(objects / servers) / objects (1/servers when they divide evenly)."""
    objects, servers = max(1, objects), max(1, servers)
    return math.ceil(objects / servers) / objects


def crush_load_share(servers: int, objects: int) -> float:
    """The busiest server's expected share of `objects` equal objects that CRUSH places each on a
    server drawn independently and uniformly (CephFS: an object's server comes from a hash of its
    name): E[max load] / objects. Exact up to 16 objects (the distribution of the largest of n
    multinomial counts); beyond, the mean plus the spread times the expected largest of n normal
    draws. 4 objects on 4 servers: E[max] = 2.125 (all four apart 3 times in 32), not 1."""
    n, k = max(1, servers), max(1, objects)
    if n == 1:
        return 1.0
    if k > 16:
        z = _NORMAL_MAX.get(n) or (math.sqrt(2 * math.log(n)) - (math.log(math.log(n)) + math.log(4 * math.pi))
                                   / (2 * math.sqrt(2 * math.log(n))))
        return min(1.0, (k / n + z * math.sqrt(k * (1 / n) * (1 - 1 / n)) + 0.5) / k)
    term = [math.exp(-math.lgamma(j + 1) - j * math.log(n)) for j in range(k + 1)]
    expected = 0.0
    for m in range(k):  # E[max] = sum over m of P(max > m); P(max <= m) = k! [x^k] (sum_{j<=m} x^j/(j! n^j))^n
        poly = [1.0] + [0.0] * k
        for _ in range(n):
            nxt = [0.0] * (k + 1)
            for i, a in enumerate(poly):
                if a:
                    for jj in range(min(m, k - i) + 1):
                        nxt[i + jj] += a * term[jj]
            poly = nxt
        expected += 1.0 - poly[k] * math.exp(math.lgamma(k + 1))
    return expected / k


# The expected largest of n standard normal draws (n = 2..8); larger n use the asymptotic formula.
_NORMAL_MAX = {2: 0.5642, 3: 0.8463, 4: 1.0294, 5: 1.1630, 6: 1.2672, 7: 1.3522, 8: 1.4236}


def writers_per_lock_unit(piece: int, lock_unit: int, ranks: int, interleaved: bool) -> int:
    """How many writers share one lock unit (a Lustre stripe, a GPFS block): when the ranks' pieces
    interleave and a piece is smaller than the unit, the unit holds lock_unit / piece of them (LRZ:
    1 MiB pieces in 8 MiB blocks, 8 writers); otherwise 1, or 2 when pieces straddle unit boundaries."""
    if ranks <= 1 or not interleaved or piece <= 0 or lock_unit <= 0:
        return 1
    if piece < lock_unit:
        return max(1, min(ranks, math.ceil(lock_unit / piece)))
    return 1 if piece % lock_unit == 0 else 2


def lock_time(conflicting_calls: float, lock_cost: float, objects: int = 1) -> float:
    """Seconds one writer spends on lock conflicts: each call whose lock unit another writer holds
    waits for the revocation, which flushes the holder's dirty data on that object; with the data
    spread over `objects` stripe objects, each holds 1/objects of it."""
    return max(0.0, conflicting_calls) * lock_cost / max(1, objects)


def exchange_time(total: float, nodes: int, aggregator_nodes: int, node_bw: float, copy_bw: float) -> float:
    """The two-phase exchange: every rank sends its data to the aggregators. Off-node, (1 - 1/nodes)
    of it crosses the network, bounded by the senders' and the receivers' links (the smaller of the
    node counts); on one node it is a memory copy."""
    if total <= 0:
        return 0.0
    if nodes <= 1:
        return total / copy_bw
    crossing = total * (1 - 1 / nodes)
    return crossing / (max(1, min(nodes, aggregator_nodes)) * node_bw)


def rounds(bytes_per_aggregator: float, buffer: int) -> int:
    """Two-phase rounds of one aggregator: its share of a call in buffer-sized pieces (ROMIO's Lustre
    writes use the stripe size as the buffer; the others cb_buffer_size)."""
    return max(1, math.ceil(bytes_per_aggregator / max(1, buffer)))


def shared_cores(ranks_per_node: int, cores: int | None) -> float:
    """The share of a core each rank of a node gets: 1 until the ranks outnumber the cores (an
    oversubscribed node: 4 ranks on 2 cores run at half speed each, and a collective call waits for
    the ranks the scheduler has set aside)."""
    if not cores or ranks_per_node <= cores:
        return 1.0
    return cores / ranks_per_node


def call_time(calls: float, latency: float) -> float:
    """Per-call latency: a process's calls are issued one after the other (KAUST: 2,083,634 writes of
    512 B in 1080 s, about 0.5 ms each)."""
    return max(0.0, calls) * latency


def buffered_calls(calls: int, total: int, buffer: int) -> int:
    """System calls left when an IOBUF-style buffer coalesces sequential calls: one per buffer filled."""
    if buffer <= 0:
        return calls
    return min(calls, max(1, math.ceil(total / buffer)))


def metadata_serial(files: float, stripes: int, file_cost: float, stripe_cost: float) -> float:
    """One process touching `files` files one after the other: a cost per file and one per stripe
    object of each file (ARCHER's tar: stripe 48 slower than 1)."""
    return max(0.0, files) * (file_cost + max(1, stripes) * stripe_cost)


def metadata_concurrent(files: float, stripes: int, servers: int, md_rate: float, stripe_cost: float) -> float:
    """Many processes touching `files` files at once: the metadata server completes md_rate files per
    second (its rate measured with one object per file), and each further stripe object of a file is
    one more request its OST serves (the objects spread over the servers)."""
    extra = max(0, stripes - 1) * max(0.0, files)
    return max(0.0, files) / md_rate + extra * stripe_cost / max(1, min(servers, stripes))


def dirty_freerun(available: int, ratio: int, background_ratio: int, limit_bytes: int = 0,
                  background_bytes: int = 0) -> int:
    """Bytes of dirty page cache below which Linux never throttles a writer: balance_dirty_pages()
    lets a task write freely under the freerun ceiling, halfway between the background and the
    dirty thresholds (mm/page-writeback.c dirty_freerun_ceiling); each threshold is vm.dirty_bytes
    (vm.dirty_background_bytes) when set, else that ratio of the available memory."""
    thresh = limit_bytes or available * ratio // 100
    background = background_bytes or available * background_ratio // 100
    return max(0, (thresh + min(background, thresh)) // 2)


def page_cache_absorbs(per_node: float, dirty_limit: int | None, flushed: bool) -> bool:
    """Buffered writes of a node that the page cache takes without waiting for the device: not
    flushed inside the phase (fsync) and below the node's dirty freerun ceiling. Then the writers'
    own copies pace them, not the device."""
    return not flushed and dirty_limit is not None and 0 < per_node < dirty_limit


def writers_in_turn(bytes_per_file: float, calls_per_file: float, rate: float, latency: float) -> float:
    """Seconds to copy one file's share when its writers take turns: a buffered write into a local
    file holds the file's inode lock for its whole copy into the page cache (Linux: ext4's
    ext4_buffered_write_iter and the generic generic_file_write_iter take inode_lock, the inode's
    i_rwsem, exclusively; XFS takes XFS_IOLOCK_EXCL), so the ranks writing one file copy one call at
    a time: the file's bytes at one process's rate, plus every call's latency, whatever the ranks."""
    return max(0.0, bytes_per_file) / rate + call_time(calls_per_file, latency)

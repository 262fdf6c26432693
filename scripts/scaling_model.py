"""The cost model of one epoch of perfit's island model, past the machine it was measured on
(docs/scaling.md "Past this machine"): compute from the measured row-evaluation rate,
messages as latency + size / bandwidth per neighbour of each topology, the vote and the row
allreduce as log2(R) steps, and the wait for the slowest rank at each sync."""
import math
import os
import statistics

NEIGHBOURS = {"ring": lambda R: 1, "torus": lambda R: 4, "full": lambda R: R - 1}


def expected_max(R):
    """E[max of R standard normals] (Blom's approximation; 0.564 for 2): the wait for the
    slowest rank at a sync, in units of the spread of one rank's time."""
    from scipy.stats import norm
    return 0.0 if R < 2 else float(norm.ppf((R - 0.375) / (R + 0.25)))


def epoch_model(r1, pop, dim, interval, migrants, lat, bw, jitter_gen):
    """Seconds of compute and of everything else, per generation, for R ranks (docs/scaling.md):
    messages (latency + size / bandwidth), and the wait for the slowest rank at each sync,
    jitter x E[max of R normals] of the compute between two syncs (islands sync once per epoch
    of `interval` generations, so their relative spread is jitter_gen / sqrt(interval))."""
    def islands(R, rows, topology):
        compute = pop * rows / r1
        msg = migrants * (dim + 1) * 8
        comm = (NEIGHBOURS[topology](R) * (lat + msg / bw) if R > 1 else 0.0) \
            + math.ceil(math.log2(R)) * (lat + 40 / bw)
        wait = compute * interval * jitter_gen / math.sqrt(interval) * expected_max(R)
        return compute, (comm + wait) / interval

    def rows_split(R, rows):
        compute = pop * rows / R / r1
        return compute, math.ceil(math.log2(R)) * (lat + pop * 8 / bw) + compute * jitter_gen * expected_max(R)

    return islands, rows_split


def measured_jitter(a, rows):
    """The relative spread of one rank's time per generation, from the wait the engine measured
    at the syncs (the vote for islands, the row allreduce for rows) at the largest rank count
    that does not oversubscribe the cores: wait = spread x E[max of R normals]."""
    cores = os.cpu_count() or 1
    counts = [R for R in sorted({r["ranks"] for r in rows}) if 1 < R <= cores]
    if a.jitter is not None or not counts:
        return a.jitter or 0.0
    R = counts[-1]
    wait = statistics.median(r["vote_share"] + r["reduce_share"] for r in rows if r["ranks"] == R)
    per_sync = wait / max(1.0 - wait, 1e-9) / expected_max(R)
    return per_sync * math.sqrt(20) if a.split == "islands" else per_sync

// Which CPUs a thread may run on. An MPI launcher binds each rank to a core (Open MPI does so by
// default with up to two ranks), and a thread a rank starts inherits that one core: a helper
// thread then halves its rank's speed while the other ranks' cores sit idle.
#pragma once

#include <sched.h>

#include <vector>

namespace perfit {

// Lets the calling thread run on every CPU its cpuset allows (the kernel keeps it inside the
// job's cgroup), not only on the core its process was bound to. For a helper thread that works
// while the node's other ranks wait, e.g. world rank 0 writing a selection's text files while
// it writes its store. Returns false, changing nothing, where the system refuses.
bool unbind_this_thread();

// The CPUs the calling thread may run on (none when the system does not say).
cpu_set_t this_thread_cpus();

// How many CPUs an unbound thread may run on (unbind_this_thread: the process's cpuset, e.g.
// Slurm's cgroup), at least 1; found once per process.
unsigned unbound_cpus();

// How many threads a rank may keep busy beside the other ranks of its node: its CPUs divided
// among the ranks whose CPUs overlap its own (`node` holds every rank's set, its own among
// them), at least 1. A rank bound to cores of its own keeps them all; ranks left unbound (an
// oversubscribed mpiexec, --bind-to none) share the node's CPUs instead of each taking all.
unsigned fair_cpu_share(const cpu_set_t& mine, const std::vector<cpu_set_t>& node);

}  // namespace perfit

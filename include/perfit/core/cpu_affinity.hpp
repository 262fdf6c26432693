// Which CPUs a thread may run on. An MPI launcher binds each rank to a core (Open MPI does so by
// default with up to two ranks), and a thread a rank starts inherits that one core: a helper
// thread then halves its rank's speed while the other ranks' cores sit idle.
#pragma once

namespace perfit {

// Lets the calling thread run on every CPU its cpuset allows (the kernel keeps it inside the
// job's cgroup), not only on the core its process was bound to. For a helper thread that works
// while the node's other ranks wait, e.g. world rank 0 writing a selection's text files while
// it writes its store. Returns false, changing nothing, where the system refuses.
bool unbind_this_thread();

}  // namespace perfit

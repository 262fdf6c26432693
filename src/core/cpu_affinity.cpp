#include "perfit/core/cpu_affinity.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

namespace perfit {

bool unbind_this_thread() {
  const long configured = ::sysconf(_SC_NPROCESSORS_CONF);
  if (configured <= 0) return false;
  cpu_set_t every;
  CPU_ZERO(&every);
  for (long c = 0; c < configured && c < CPU_SETSIZE; ++c) CPU_SET(static_cast<int>(c), &every);
  // The kernel intersects the mask with the cpuset (Slurm's cgroup): CPUs outside it are dropped.
  return ::pthread_setaffinity_np(::pthread_self(), sizeof every, &every) == 0;
}

}  // namespace perfit

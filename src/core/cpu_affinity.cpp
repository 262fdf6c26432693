#include "perfit/core/cpu_affinity.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

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

cpu_set_t this_thread_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::pthread_getaffinity_np(::pthread_self(), sizeof set, &set) != 0) CPU_ZERO(&set);
  return set;
}

unsigned unbound_cpus() {
  static const unsigned n = [] {
    unsigned count = 1;
    std::thread probe([&] {  // a thread of its own: the caller keeps its binding
      const cpu_set_t set = unbind_this_thread() ? this_thread_cpus() : cpu_set_t{};
      count = static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
    });
    probe.join();
    return count;
  }();
  return n;
}

unsigned fair_cpu_share(const cpu_set_t& mine, const std::vector<cpu_set_t>& node) {
  unsigned sharing = 0;
  for (const auto& other : node) {
    cpu_set_t both;
    CPU_AND(&both, &mine, &other);
    if (CPU_COUNT(&both) > 0) ++sharing;
  }
  const unsigned cpus = static_cast<unsigned>(CPU_COUNT(&mine));
  return std::max(1u, cpus / std::max(1u, sharing));
}

}  // namespace perfit

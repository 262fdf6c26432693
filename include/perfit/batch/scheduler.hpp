// Dynamic hand-out of a batch's fits to groups of ranks (docs/batch.md "Scheduler"). The world
// is split into groups of ranks_per_group; the leader (group rank 0) of each group asks world
// rank 0 for a task, the whole group runs it, the leader reports its record and asks again.
// World rank 0 fits too: its own group asks directly, the others' messages are answered by a
// thread. Tasks go out in the given order, each finished record is passed to `finished`, and
// once the list is done or a stop is requested a leader is told to leave; the job ends when
// every group has left.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace perfit::batch {

struct ScheduleHooks {
  // Every rank of a group, with the same task; the group's rank 0 returns the task's record.
  std::function<std::string(std::size_t task, MPI_Comm group)> run;
  // World rank 0 (its main thread or the scheduler thread), once per finished task, one call
  // at a time.
  std::function<void(std::size_t task, std::string_view record)> finished;
  // World rank 0, after one or more `finished` calls, when no leader waits for an answer
  // (never concurrently with itself): where slow work such as writing files belongs.
  std::function<void()> flush;
  // World rank 0: true once no further task may start (a signal, an interrupted task).
  std::function<bool()> stop_requested;
};

struct ScheduleResult {
  std::size_t started = 0, finished = 0;  // world rank 0's count; other ranks: 0
};

// Collective over world (MPI_COMM_NULL: serial, no MPI call; otherwise MPI must provide
// MPI_THREAD_MULTIPLE when world has more than one rank). An exception from `finished` stops
// the hand-out and is rethrown on world rank 0 once every group has left.
// Throws: ConfigError when the world size is not a multiple of ranks_per_group; MpiError.
ScheduleResult run_schedule(MPI_Comm world, int ranks_per_group,
                            const std::vector<std::size_t>& order, const ScheduleHooks& hooks);

}  // namespace perfit::batch

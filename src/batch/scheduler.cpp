#include "perfit/batch/scheduler.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "perfit/core/error.hpp"
#include "perfit/mpi/communicator.hpp"
#include "perfit/mpi/environment.hpp"

namespace perfit::batch {

namespace {

// leader -> rank 0: [int64 finished task or -1][int64 1: wants a task, 0: leaves][record]
constexpr int kAsk = 1;
constexpr int kAssign = 2;  // rank 0 -> leader: int64 task, or -1: none left
constexpr std::int64_t kNone = -1;
constexpr std::size_t kHeader = 2 * sizeof(std::int64_t);

// Into `m`, whose bytes are reused: a selection's chunk is ~1 MB.
void encode(std::int64_t done, bool want, std::string_view record, std::string& m) {
  const std::int64_t header[2] = {done, want ? 1 : 0};
  m.assign(reinterpret_cast<const char*>(header), kHeader);
  m.append(record);
}

// Hands out tasks in order and collects records. World rank 0's own group asks directly
// (next_task); other leaders ask by message, answered by serve() on a thread of rank 0. The
// thread polls (Iprobe, then a sleep) rather than blocking in MPI_Recv, because a blocked
// receive spins a core that a fit needs. Its sleep backs off to a fifth of the mean task time
// (0.1 to 5 ms): a leader holds one task in hand (RemoteLeader), so an answer within a fifth of
// a task costs it no wait, and each wake-up preempts a fit on rank 0's core (at a fiftieth,
// 2,500 a second at 10^6 sets on 2 ranks: 14% of the thread's time was their context
// switches). `flush` runs when no request waits, so a leader never waits for the summary files
// to be written.
class Dispatcher {
 public:
  using Clock = std::chrono::steady_clock;

  Dispatcher(MPI_Comm comm, int groups, const std::vector<std::size_t>& order,
             const ScheduleHooks& hooks)
      : comm_(comm), remote_(groups - 1), order_(order), hooks_(hooks), start_(Clock::now()) {}

  // Reports `done` (kNone: nothing finished) and, if wanted, hands out the next task (kNone:
  // none left).
  std::int64_t next_task(std::int64_t done, std::string_view record, bool want = true) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (done != kNone) report(static_cast<std::size_t>(done), record);
    if (want && next_ < order_.size() && !error_ &&
        !(hooks_.stop_requested && hooks_.stop_requested())) {
      ++result_.started;
      return static_cast<std::int64_t>(order_[next_++]);
    }
    return kNone;
  }

  void serve() {
    int present = remote_;
    auto sleep = kMinSleep;
    while (present > 0) {
      int flag = 0;
      MPI_Status st;
      mpi::check(MPI_Iprobe(MPI_ANY_SOURCE, kAsk, comm_, &flag, &st), "MPI_Iprobe (batch)");
      if (!flag) {
        if (flush_if_pending()) continue;
        std::this_thread::sleep_for(sleep);
        sleep = std::min(sleep * 2, max_sleep());
        continue;
      }
      sleep = kMinSleep;
      int bytes = 0;
      mpi::check(MPI_Get_count(&st, MPI_CHAR, &bytes), "MPI_Get_count (batch)");
      if (bytes < static_cast<int>(kHeader))
        throw MpiError("a batch request of " + std::to_string(bytes) + " bytes from rank " +
                       std::to_string(st.MPI_SOURCE) + " (at least " + std::to_string(kHeader) +
                       " expected)");
      // Into bytes kept between messages: a new string of each ~1 MB chunk, zeroed then copied
      // out again, was ~an eighth of this thread's time at 10^6 sets on 2 ranks (perf: 4% the
      // zeroing, most of its 8% of copies).
      if (received_.size() < static_cast<std::size_t>(bytes))
        received_.resize(static_cast<std::size_t>(bytes));
      mpi::check(MPI_Recv(received_.data(), bytes, MPI_CHAR, st.MPI_SOURCE, kAsk, comm_,
                          MPI_STATUS_IGNORE),
                 "MPI_Recv (batch request)");
      std::int64_t header[2] = {kNone, 0};
      std::memcpy(header, received_.data(), kHeader);
      const std::string_view record(received_.data() + kHeader,
                                    static_cast<std::size_t>(bytes) - kHeader);
      if (header[1] == 0) {  // the leader's last record: its group leaves
        if (header[0] != kNone) next_task(header[0], record, false);
        --present;
        continue;
      }
      const std::int64_t next = next_task(header[0], record);
      mpi::check(MPI_Send(&next, 1, MPI_INT64_T, st.MPI_SOURCE, kAssign, comm_),
                 "MPI_Send (batch task)");
    }
    flush_if_pending();
    serving_ = false;  // from now on the main thread flushes
  }

  bool serving() const { return serving_; }

  // Calls hooks.flush once for the records reported since the last call; true if it did.
  // One thread at a time: the scheduler thread, or the main thread when there is none.
  bool flush_if_pending() {
    if (!pending_.exchange(false) || !hooks_.flush) return false;
    try {
      hooks_.flush();
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    return true;
  }

  ScheduleResult result() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return result_;
  }
  std::exception_ptr error() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return error_;
  }

 private:
  static constexpr std::chrono::microseconds kMinSleep{50};

  std::chrono::microseconds max_sleep() {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (result_.finished == 0) return std::chrono::microseconds(1000);
    const auto mean = (Clock::now() - start_) * static_cast<long>(remote_ + 1) /
                      static_cast<long>(result_.finished);
    return std::clamp(std::chrono::duration_cast<std::chrono::microseconds>(mean / 5),
                      std::chrono::microseconds(100), std::chrono::microseconds(5000));
  }

  void report(std::size_t task, std::string_view record) {
    ++result_.finished;
    if (error_ || !hooks_.finished) return;
    try {
      hooks_.finished(task, record);
      pending_ = true;
    } catch (...) {
      error_ = std::current_exception();  // no new task; the groups still leave cleanly
    }
  }

  MPI_Comm comm_;
  int remote_;
  const std::vector<std::size_t>& order_;
  const ScheduleHooks& hooks_;
  Clock::time_point start_;
  std::mutex mutex_;
  std::atomic<bool> pending_{false};
  std::atomic<bool> serving_{true};
  std::size_t next_ = 0;
  std::string received_;  // serve()'s last message
  ScheduleResult result_;
  std::exception_ptr error_;
};

// A remote leader keeps one task in hand: it asks for the next one (reporting the last
// record) as soon as its group starts a task, so the group never waits for rank 0's thread,
// which shares its cores with fits and may take milliseconds to be scheduled. The report goes
// without waiting for that thread either: a blocking send of a selection's chunk (~1 MB at 256
// sets) waited for it to take the bytes, ~5% of rank 1's time at 10^6 sets on 2 ranks (perf);
// it is done by the next ask.
class RemoteLeader {
 public:
  explicit RemoteLeader(MPI_Comm comm) : comm_(comm) {}
  ~RemoteLeader() {
    if (reply_ != MPI_REQUEST_NULL) MPI_Cancel(&reply_);  // an error unwinds: the job ends anyway
    // A report under way keeps its bytes until rank 0, which probes for reports until every
    // leader left, has taken them.
    if (sent_ != MPI_REQUEST_NULL) MPI_Wait(&sent_, MPI_STATUS_IGNORE);
  }
  RemoteLeader(const RemoteLeader&) = delete;
  RemoteLeader& operator=(const RemoteLeader&) = delete;

  void ask(std::int64_t done, std::string_view record) {
    send(done, true, record);
    mpi::check(MPI_Irecv(&answer_, 1, MPI_INT64_T, 0, kAssign, comm_, &reply_),
               "MPI_Irecv (batch task)");
  }
  std::int64_t answer() {
    mpi::check(MPI_Wait(&reply_, MPI_STATUS_IGNORE), "MPI_Wait (batch task)");
    return answer_;
  }
  void leave(std::int64_t done, std::string_view record) {
    send(done, false, record);
    mpi::check(MPI_Wait(&sent_, MPI_STATUS_IGNORE), "MPI_Wait (batch request)");
  }

 private:
  void send(std::int64_t done, bool want, std::string_view record) {
    // The last report: rank 0 took it when it answered the ask it came with.
    mpi::check(MPI_Wait(&sent_, MPI_STATUS_IGNORE), "MPI_Wait (batch request)");
    encode(done, want, record, sending_);
    mpi::check(MPI_Isend(sending_.data(), static_cast<int>(sending_.size()), MPI_CHAR, 0, kAsk,
                         comm_, &sent_),
               "MPI_Isend (batch request)");
  }
  MPI_Comm comm_;
  MPI_Request reply_ = MPI_REQUEST_NULL, sent_ = MPI_REQUEST_NULL;
  std::string sending_;  // the report under way
  std::int64_t answer_ = kNone;
};

void share(std::int64_t& task, MPI_Comm group) {
  if (group != MPI_COMM_NULL)
    mpi::check(MPI_Bcast(&task, 1, MPI_INT64_T, 0, group), "MPI_Bcast (batch task)");
}

// World rank 0's group: asks the dispatcher directly, one task at a time.
void work_local(Dispatcher& dispatcher, MPI_Comm group, bool threaded, const ScheduleHooks& hooks) {
  std::int64_t done = kNone;
  std::string record;
  for (;;) {
    std::int64_t task = dispatcher.next_task(done, record);
    if (!threaded || !dispatcher.serving()) dispatcher.flush_if_pending();
    share(task, group);
    if (task == kNone) return;
    record = hooks.run(static_cast<std::size_t>(task), group);
    done = task;
  }
}

// Every rank but world rank 0: a leader talks to rank 0 by message; the other ranks of a group
// follow their leader (world rank 0 for group 0).
void work_remote(MPI_Comm comm, MPI_Comm group, bool leader, const ScheduleHooks& hooks) {
  std::optional<RemoteLeader> me;
  std::int64_t task = kNone;
  if (leader) {
    me.emplace(comm);
    me->ask(kNone, "");
    task = me->answer();
    if (task == kNone) {
      me->leave(kNone, "");
    } else {
      me->ask(kNone, "");  // the task after this one
    }
  }
  for (;;) {
    share(task, group);
    if (task == kNone) break;
    const std::string record = hooks.run(static_cast<std::size_t>(task), group);
    if (!leader) continue;
    const std::int64_t next = me->answer();
    if (next == kNone) {
      me->leave(task, record);
      task = kNone;
    } else {
      me->ask(task, record);
      task = next;
    }
  }
}

}  // namespace

ScheduleResult run_schedule(MPI_Comm world, int ranks_per_group,
                            const std::vector<std::size_t>& order, const ScheduleHooks& hooks) {
  int size = 1, rank = 0;
  if (world != MPI_COMM_NULL) {
    mpi::check(MPI_Comm_size(world, &size), "MPI_Comm_size");
    mpi::check(MPI_Comm_rank(world, &rank), "MPI_Comm_rank");
  }
  if (ranks_per_group < 1 || size % ranks_per_group != 0) {
    throw ConfigError("ranks_per_fit " + std::to_string(ranks_per_group) +
                      " does not divide the job's " + std::to_string(size) +
                      " ranks; start a multiple of ranks_per_fit ranks");
  }
  if (size == 1) {  // no MPI: this process is the only group
    Dispatcher dispatcher(MPI_COMM_NULL, 1, order, hooks);
    work_local(dispatcher, MPI_COMM_NULL, false, hooks);
    if (dispatcher.error()) std::rethrow_exception(dispatcher.error());
    return dispatcher.result();
  }
  const bool remote_groups = size > ranks_per_group;
  int provided = 0;
  mpi::check(MPI_Query_thread(&provided), "MPI_Query_thread");
  if (remote_groups && provided < MPI_THREAD_MULTIPLE) {
    throw MpiError(
        "perfit batch with more than one group of ranks needs MPI_THREAD_MULTIPLE (rank 0 "
        "hands out fits from a thread); this MPI library provides less");
  }
  MPI_Comm group_raw = MPI_COMM_NULL, comm_raw = MPI_COMM_NULL;
  mpi::check(MPI_Comm_split(world, rank / ranks_per_group, rank, &group_raw),
             "MPI_Comm_split (batch groups)");
  const mpi::Communicator group(group_raw);
  mpi::check(MPI_Comm_dup(world, &comm_raw), "MPI_Comm_dup (batch)");
  const mpi::Communicator comm(comm_raw);
  Dispatcher dispatcher(comm.get(), size / ranks_per_group, order, hooks);
  std::thread thread;
  std::exception_ptr thread_error;
  if (rank == 0 && remote_groups) {
    thread = std::thread([&] {
      try {
        dispatcher.serve();
      } catch (...) {
        thread_error = std::current_exception();  // an MPI failure: the main thread rethrows
      }
    });
  }
  try {
    if (rank == 0) {
      work_local(dispatcher, group.get(), remote_groups, hooks);
    } else {
      work_remote(comm.get(), group.get(), rank % ranks_per_group == 0, hooks);
    }
  } catch (const std::exception& e) {
    if (thread.joinable()) {  // the thread would wait for groups that never ask again: end the job
      const auto* pe = dynamic_cast<const Error*>(&e);
      std::fprintf(stderr, "perfit: error (rank 0): %s\n", e.what());
      mpi::abort_all(pe ? pe->exit_code() : 1);
    }
    throw;
  }
  if (thread.joinable()) thread.join();
  if (rank == 0) dispatcher.flush_if_pending();
  if (thread_error) std::rethrow_exception(thread_error);
  if (dispatcher.error()) std::rethrow_exception(dispatcher.error());
  return rank == 0 ? dispatcher.result() : ScheduleResult{};
}

}  // namespace perfit::batch

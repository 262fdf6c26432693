// World rank 0's ledger while a selection over many sets runs: the chunks of rows the ranks
// report are applied as they come, and the selection files are rewritten now and then on a
// thread of their own, so that neither the rank handing out work nor its own selections wait
// for a rewrite (one of 430,000 winners held both ranks ~11 s).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "perfit/select/ledger.hpp"

namespace perfit::select {

class RunningLedger {
 public:
  using Clock = std::chrono::steady_clock;
  // out: the directory of the selection files ("" : none written); every: the least time between
  // rewrites; units: how many sets the run has; applied(n): after n rows were applied.
  RunningLedger(SelectionLedger& ledger, std::string out, Clock::duration every, std::size_t units,
                std::function<void(std::size_t)> applied);
  RunningLedger(const RunningLedger&) = delete;
  RunningLedger& operator=(const RunningLedger&) = delete;
  ~RunningLedger();

  // A chunk's rows (select_chunk's bytes): applied now, or once a rewrite in progress is done.
  // Throws: DataError for bytes that name no set of the run; a rewrite's error.
  void finished(const std::string& bytes);
  // Starts a rewrite of the files when one is due: at most every `every`, and at most every 20
  // times as long as the last rewrite took (the files hold every set, so rewriting at a fixed
  // interval would cost O(N) per interval).
  void flush();
  // Waits for a rewrite in progress, applies what waited for it, and writes the files.
  void finish();

 private:
  void apply(const std::string& bytes);  // under mutex_
  void settle(bool wait);                // under mutex_: a finished rewrite's rows applied

  SelectionLedger& ledger_;
  std::string out_;
  Clock::duration every_;
  std::size_t units_;
  std::function<void(std::size_t)> applied_;
  std::mutex mutex_;  // finished() and flush() run on different threads of rank 0
  Clock::time_point next_write_;
  Clock::duration last_took_{};  // written by the rewrite's thread, read once it is done
  std::future<void> writing_;
  std::vector<std::string> waiting_;  // chunks reported during a rewrite
};

}  // namespace perfit::select

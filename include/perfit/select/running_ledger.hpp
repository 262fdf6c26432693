// World rank 0's ledger while a selection over many sets runs: the chunks of rows the ranks
// report are applied as they come (each set to the selection's journal, its checkpoint), the
// journal flushed to its file now and then, and the selection files are written at the end.
// A checkpoint writes what is new: rewriting the files of every set so far cost O(N) each
// time (one at 10^6 sets held rank 0 for 17 s).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>

#include "perfit/select/ledger.hpp"

namespace perfit::select {

class RunningLedger {
 public:
  using Clock = std::chrono::steady_clock;
  // out: the directory of the selection files ("" : none written); every: the least time
  // between checkpoints; units: how many sets the run has; applied(n): after n rows were
  // applied.
  RunningLedger(SelectionLedger& ledger, std::string out, Clock::duration every, std::size_t units,
                std::function<void(std::size_t)> applied);

  // A chunk's rows (select_chunk's bytes), applied. Throws: DataError for bytes that name no
  // set of the run; IoError from the journal.
  void finished(std::string_view bytes);
  // The journal's buffer written to its file when a checkpoint is due: at most every `every`.
  void flush();
  // Writes the files.
  void finish();

 private:
  SelectionLedger& ledger_;
  std::string out_;
  Clock::duration every_;
  std::size_t units_;
  std::function<void(std::size_t)> applied_;
  std::mutex mutex_;  // finished() and flush() run on different threads of rank 0
  Clock::time_point next_flush_;
};

}  // namespace perfit::select

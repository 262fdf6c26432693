#include "perfit/select/running_ledger.hpp"

#include "perfit/core/error.hpp"
#include "perfit/data/wire.hpp"

namespace perfit::select {

RunningLedger::RunningLedger(SelectionLedger& ledger, std::string out, Clock::duration every,
                             std::size_t units, std::function<void(std::size_t)> applied)
    : ledger_(ledger),
      out_(std::move(out)),
      every_(every),
      units_(units),
      applied_(std::move(applied)),
      next_flush_(Clock::now() + every) {}

void RunningLedger::finished(std::string_view bytes) {
  const std::lock_guard<std::mutex> lock(mutex_);
  data::WireReader in(bytes, "a chunk of selections");
  const std::uint64_t count = in.count();
  SelectionLedger::Carried carried;  // what the chunk's records' configuration numbers name
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::uint64_t i = in.count();
    if (i >= units_) throw DataError("a chunk of selections names no set of this run");
    const std::string_view row = in.text_view();
    ledger_.set(i, row, in.text_view(), carried);
  }
  if (applied_) applied_(count);
}

void RunningLedger::flush() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (out_.empty() || Clock::now() < next_flush_) return;
  ledger_.flush_journal();
  next_flush_ = Clock::now() + every_;
}

void RunningLedger::finish() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!out_.empty()) ledger_.write(out_);
}

}  // namespace perfit::select

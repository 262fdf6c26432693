#include "perfit/select/running_ledger.hpp"

#include <nlohmann/json.hpp>

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
      next_write_(Clock::now() + every) {}

RunningLedger::~RunningLedger() {
  // An error left the run: the rewrite in progress still reads the ledger.
  if (writing_.valid()) writing_.wait();
}

void RunningLedger::finished(const std::string& bytes) {
  const std::lock_guard<std::mutex> lock(mutex_);
  settle(false);
  if (writing_.valid()) {
    waiting_.push_back(bytes);  // the rewrite reads the ledger: nothing changes it meanwhile
    return;
  }
  apply(bytes);
}

void RunningLedger::flush() {
  const std::lock_guard<std::mutex> lock(mutex_);
  settle(false);
  if (out_.empty() || writing_.valid() || Clock::now() < next_write_) return;
  writing_ = std::async(std::launch::async, [this] {
    const auto t0 = Clock::now();
    ledger_.write(out_);
    last_took_ = Clock::now() - t0;
  });
}

void RunningLedger::finish() {
  const std::lock_guard<std::mutex> lock(mutex_);
  settle(true);
  if (!out_.empty()) ledger_.write(out_);
}

void RunningLedger::settle(bool wait) {
  if (!writing_.valid()) return;
  if (!wait && writing_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  std::vector<std::string> waited;
  waited.swap(waiting_);
  try {
    writing_.get();
  } catch (...) {
    for (const auto& bytes : waited) apply(bytes);  // kept for the final write
    throw;
  }
  next_write_ = Clock::now() + std::max<Clock::duration>(every_, 20 * last_took_);
  for (const auto& bytes : waited) apply(bytes);
}

void RunningLedger::apply(const std::string& bytes) {
  data::WireReader in(bytes, "a chunk of selections");
  const std::uint64_t count = in.count();
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::uint64_t i = in.count();
    if (i >= units_) throw DataError("a chunk of selections names no set of this run");
    const std::string row(in.text_view());
    ledger_.set(i, row, std::string(in.text_view()));
  }
  if (applied_) applied_(count);
}

}  // namespace perfit::select

#include "perfit/io/atomic_output.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "perfit/core/error.hpp"
#include "process_gone.hpp"

namespace perfit::io {

namespace fs = std::filesystem;

namespace {

// Fixed storage the signal handler can read without allocating: a path per live output.
constexpr int kSlots = 32;
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 holds a path to remove on a signal
  char path[4096] = {};
};
std::array<Slot, kSlots> g_slots;

int claim_slot(const std::string& path) {
  if (path.size() >= sizeof(Slot::path)) return -1;
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = g_slots[static_cast<std::size_t>(i)];
    int expected = 0;
    if (!s.state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.state.store(2);
    return i;
  }
  return -1;  // more than kSlots outputs at once: the destructor still cleans up
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "host";
  std::string h(buf);
  return h.substr(0, h.find('.'));
}

// ".NAME.tmp-HOST-PID-N" files of this host whose PID is gone: left by a kill -9.
void remove_stale_temps(const fs::path& dir, const std::string& name, const std::string& host) {
  const std::string prefix = "." + name + ".tmp-" + host + "-";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string f = e.path().filename().string();
    if (f.compare(0, prefix.size(), prefix) != 0) continue;
    const long pid = std::strtol(f.c_str() + prefix.size(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid()) continue;
    if (detail::process_gone(pid)) {
      std::error_code rm;
      if (fs::remove(e.path(), rm)) {
        std::fprintf(stderr, "perfit: removed '%s', a temporary file left by process %ld\n",
                     e.path().c_str(), pid);
      }
    }
  }
}

}  // namespace

void remove_temp_files_now() {
  for (auto& s : g_slots) {
    if (s.state.load() == 2) ::unlink(s.path);  // async-signal-safe
  }
}

AtomicOutput::AtomicOutput(std::string target) : target_(std::move(target)) {
  const fs::path t(target_);
  const fs::path dir = t.has_parent_path() ? t.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw IoError("cannot write '" + target_ + "': directory '" + dir.string() +
                  "' does not exist. Create it first");
  }
  if (fs::is_directory(t, ec)) {
    throw IoError("cannot write '" + target_ + "': it is a directory, expected a file name");
  }
  const std::string host = host_name();
  remove_stale_temps(dir, t.filename().string(), host);
  static std::atomic<int> counter{0};
  temp_ = (dir / ("." + t.filename().string() + ".tmp-" + host + "-" + std::to_string(::getpid()) +
                  "-" + std::to_string(counter++)))
              .string();
  slot_ = claim_slot(temp_);
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) std::remove(temp_.c_str());
  if (slot_ >= 0) g_slots[static_cast<std::size_t>(slot_)].state.store(0);
}

void AtomicOutput::rethrow_naming_target(const Error& e) const {
  std::string msg = e.what();
  if (msg.find(temp_) == std::string::npos) throw;  // keeps its type
  for (auto at = msg.find(temp_); at != std::string::npos;
       at = msg.find(temp_, at + target_.size())) {
    msg.replace(at, temp_.size(), target_);
  }
  throw Error(msg, e.exit_code());
}

void AtomicOutput::commit() {
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    throw IoError("cannot write '" + target_ + "': " + std::strerror(errno));
  }
  committed_ = true;
  if (slot_ >= 0) g_slots[static_cast<std::size_t>(slot_)].state.store(0);
  slot_ = -1;
}

void write_text_file(const std::string& path, const std::string& text) {
  write_text_file(path, [&](std::ostream& f) { f << text; });
}

void write_text_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  AtomicOutput out(path);
  out.write_and_commit([&](const std::string& tmp) {
    std::ofstream f(tmp);
    write(f);
    f.close();
    if (!f) throw IoError("cannot write '" + tmp + "' (disk full or no permission)");
  });
}

}  // namespace perfit::io

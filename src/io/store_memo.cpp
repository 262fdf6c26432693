// SetInfoMemo: while one lives, open_store shares a reader per file and StoreReader::info a
// description per set (a selection over 10^5 sets opens its store a few times per set).
#include <map>
#include <memory>
#include <mutex>

#include "perfit/io/file_identity.hpp"
#include "perfit/io/store_reader.hpp"

namespace perfit::io {

namespace {

constexpr std::size_t kMemoSets = 4096;

// SetInfoMemo's state: how many are alive and the descriptions read meanwhile.
using FileSet = std::pair<FileIdentity, std::string>;
struct InfoMemo {
  std::mutex m;
  int alive = 0;
  std::map<FileSet, SetInfo> infos;
  std::map<FileSet, std::shared_ptr<const StoreReader>> readers;  // set "": the file's reader
  // Each path's identity, taken once: the stores are inputs that do not change while a memo
  // lives, and a stat() per open was 2.5% of a selection over 10^4 sets.
  std::map<std::string, FileIdentity> identities;
};
InfoMemo& info_memo() {
  static InfoMemo instance;
  return instance;
}
// Under the memo's lock, while one is alive.
bool file_set(const std::string& path, const std::string& set, FileSet& key) {
  auto& known = info_memo().identities;
  if (const auto it = known.find(path); it != known.end()) {
    key = {it->second, set};
    return true;
  }
  const auto id = file_identity(path);
  if (!id) return false;
  if (known.size() >= 64) known.clear();
  known.emplace(path, *id);
  key = {*id, set};
  return true;
}

}  // namespace

SetInfoMemo::SetInfoMemo() {
  std::lock_guard<std::mutex> lock(info_memo().m);
  ++info_memo().alive;
}

SetInfoMemo::~SetInfoMemo() {
  std::map<FileSet, std::shared_ptr<const StoreReader>> closing;  // closed outside the lock
  std::lock_guard<std::mutex> lock(info_memo().m);
  if (--info_memo().alive == 0) {
    info_memo().infos.clear();
    info_memo().identities.clear();
    closing.swap(info_memo().readers);
  }
}

std::shared_ptr<const StoreReader> open_store(const std::string& path) {
  FileSet key;
  {
    std::lock_guard<std::mutex> lock(info_memo().m);
    if (info_memo().alive == 0 || !file_set(path, "", key))
      return std::make_shared<const StoreReader>(path);
    const auto it = info_memo().readers.find(key);
    if (it != info_memo().readers.end()) return it->second;
  }
  auto reader = std::make_shared<const StoreReader>(path);
  std::lock_guard<std::mutex> lock(info_memo().m);
  if (info_memo().alive > 0) {
    if (info_memo().readers.size() >= 16) info_memo().readers.clear();
    info_memo().readers.emplace(key, reader);
  }
  return reader;
}

SetInfo StoreReader::info(const std::string& set) const {
  FileSet key;
  bool memo = false;
  {
    std::lock_guard<std::mutex> lock(info_memo().m);
    memo = info_memo().alive > 0 && identity_.has_value();
    if (identity_) key = {*identity_, set};
    if (memo) {
      const auto it = info_memo().infos.find(key);
      if (it != info_memo().infos.end()) return it->second;
    }
  }
  SetInfo si = info_uncached(set);
  if (memo) {
    std::lock_guard<std::mutex> lock(info_memo().m);
    // Bounded: a run asks for a set's description a few times in a row, then moves on, so
    // forgetting everything now and then costs one read, and 10^5 sets do not stay in memory.
    if (info_memo().infos.size() >= kMemoSets) info_memo().infos.clear();
    info_memo().infos.emplace(key, si);
  }
  return si;
}

SetInfo describe_set(const std::string& path, const std::string& set) {
  return open_store(path)->info(set);
}

}  // namespace perfit::io

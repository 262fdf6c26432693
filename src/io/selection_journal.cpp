#include "perfit/io/selection_journal.hpp"

#include <libdeflate.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "perfit/core/error.hpp"
#include "perfit/io/read_window.hpp"
#include "perfit/io/unique_fd.hpp"

namespace perfit::io {

namespace {

constexpr std::string_view kFileMagic = "PFSELJ01";
constexpr std::string_view kEntryMagic = "PFJE";
constexpr std::size_t kHeaderBytes = 32;  // magic, CRC, three lengths

// libdeflate's CRC-32 (zlib's polynomial, the same values): a resume's replay checks every
// byte of the journal, 3.6 GB at 10^6 sets, and zlib's took 2.8-3.8 s of it against 1.8 s.
std::uint32_t crc_of(const char* lengths, std::string_view set, std::string_view row,
                     std::initializer_list<std::string_view> record) {
  std::uint32_t crc = libdeflate_crc32(0, lengths, 24);
  for (const std::string_view s : {set, row}) crc = libdeflate_crc32(crc, s.data(), s.size());
  for (const std::string_view s : record) crc = libdeflate_crc32(crc, s.data(), s.size());
  return crc;
}

RecordSpill make_spill(const std::string& dir, const std::unique_ptr<AtomicOutput>& named) {
  if (!named) return RecordSpill(dir);
  std::optional<RecordSpill> spill;
  named->write([&](const std::string& temp) { spill.emplace(RecordSpill::named(temp)); });
  return std::move(*spill);
}

template <class T>
T load_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);  // the file's byte order is the machine's: x86-64, aarch64
  return v;
}

}  // namespace

std::string SelectionJournal::path_in(const std::string& dir) {
  return (std::filesystem::path(dir) / ".selection.journal").string();
}

SelectionJournal::SelectionJournal(const std::string& dir, bool named)
    : named_(named ? std::make_unique<AtomicOutput>(path_in(dir)) : nullptr),
      path_(named ? path_in(dir) : ""),
      spill_(make_spill(dir, named_)) {
  spill_.append(kFileMagic);
}

SelectionJournal::Entry SelectionJournal::append(std::string_view set, std::string_view row,
                                                 std::initializer_list<std::string_view> record) {
  std::array<char, kHeaderBytes> h{};
  std::memcpy(h.data(), kEntryMagic.data(), 4);
  std::uint64_t record_bytes = 0;
  for (const std::string_view s : record) record_bytes += s.size();
  const std::array<std::uint64_t, 3> lengths = {set.size(), row.size(), record_bytes};
  std::memcpy(h.data() + 8, lengths.data(), 24);
  const std::uint32_t crc = crc_of(h.data() + 8, set, row, record);
  std::memcpy(h.data() + 4, &crc, 4);
  spill_.append(std::string_view(h.data(), h.size()));
  spill_.append(set);
  Entry e;
  e.row = spill_.append(row);
  e.record = {spill_.end(), record_bytes};
  for (const std::string_view s : record) spill_.append(s);
  return e;
}

void SelectionJournal::commit() {
  if (!named_) return;
  spill_.flush();
  named_->commit();
  named_.reset();
  committed_ = true;
}

void SelectionJournal::remove() {
  if (!committed_) return;
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT)
    throw IoError("cannot remove '" + path_ + "': " + std::strerror(errno));
  committed_ = false;
}

void SelectionJournal::continue_in(const std::string& dir, const Replayed& taken) {
  path_ = path_in(dir);
  spill_ = RecordSpill::existing(path_, taken.bytes);
  named_.reset();  // the temporary file, which held nothing yet, removed
  committed_ = true;
}

std::optional<SelectionJournal::Replayed> SelectionJournal::replay(const std::string& path,
                                                                   const Visit& fn) {
  const UniqueFd fd(path, O_RDONLY);
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw IoError("cannot read '" + path + "': " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    throw IoError("cannot read '" + path + "': " + std::strerror(errno));
  const auto size = static_cast<std::uint64_t>(st.st_size);
  // Through a window (io/read_window.hpp), copied once a MiB at a time: read into a string
  // each, a replay of 10^6 entries was 3.6 GB copied twice; mapped, a first touch per page cost
  // more than the copy.
  const ReadWindow file(fd.get(), size, "'" + path + "'");
  std::string window;
  if (size < kFileMagic.size() || file.view(0, kFileMagic.size(), window) != kFileMagic) {
    throw DataError("'" + path +
                    "' is not a selection journal this perfit writes (its first bytes); remove "
                    "it to select every set again");
  }
  Replayed r;
  std::uint64_t at = kFileMagic.size();
  while (at < size) {
    std::string_view h, set, row, record;
    std::uint64_t len[3] = {};
    bool whole = size - at >= kHeaderBytes;
    if (whole) {
      h = file.view(at, kHeaderBytes, window);
      whole = h.substr(0, 4) == kEntryMagic;
    }
    if (whole) {
      for (int k = 0; k < 3; ++k) len[k] = load_le<std::uint64_t>(h.data() + 8 + 8 * k);
      const std::uint64_t left = size - at - kHeaderBytes;
      // Each length checked against what the file holds before it is read.
      whole = len[0] <= left && len[1] <= left - len[0] && len[2] <= left - len[0] - len[1];
    }
    const std::uint64_t body = at + kHeaderBytes;
    if (whole) {  // the entry as one view: the header's may be gone with the window's block
      const std::string_view e = file.view(at, kHeaderBytes + len[0] + len[1] + len[2], window);
      h = e.substr(0, kHeaderBytes);
      set = e.substr(kHeaderBytes, len[0]);
      row = e.substr(kHeaderBytes + len[0], len[1]);
      record = e.substr(kHeaderBytes + len[0] + len[1]);
      whole = crc_of(h.data() + 8, set, row, {record}) == load_le<std::uint32_t>(h.data() + 4);
    }
    if (!whole) {
      spdlog::warn(
          "'{}': its last {} bytes are not whole entries (a write cut short by a "
          "kill, or damaged): the {} entries before them are taken",
          path, size - at, r.entries);
      break;
    }
    fn(set, row, record, Entry{{body + len[0], len[1]}, {body + len[0] + len[1], len[2]}});
    ++r.entries;
    at = body + len[0] + len[1] + len[2];
  }
  r.bytes = at;
  return r;
}

}  // namespace perfit::io

#include "perfit/io/selection_journal.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "perfit/core/error.hpp"

namespace perfit::io {

namespace {

constexpr std::string_view kFileMagic = "PFSELJ01";
constexpr std::string_view kEntryMagic = "PFJE";
constexpr std::size_t kHeaderBytes = 32;  // magic, CRC, three lengths

std::uint32_t crc_of(const char* lengths, std::string_view set, std::string_view row,
                     std::string_view record) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(lengths), 24);
  for (const std::string_view s : {set, row, record}) {
    crc = crc32_z(crc, reinterpret_cast<const Bytef*>(s.data()), s.size());
  }
  return static_cast<std::uint32_t>(crc);
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
  spill_.append(std::string(kFileMagic));
}

SelectionJournal::Entry SelectionJournal::append(std::string_view set, const std::string& row,
                                                 const std::string& record) {
  std::array<char, kHeaderBytes> h{};
  std::memcpy(h.data(), kEntryMagic.data(), 4);
  const std::array<std::uint64_t, 3> lengths = {set.size(), row.size(), record.size()};
  std::memcpy(h.data() + 8, lengths.data(), 24);
  const std::uint32_t crc = crc_of(h.data() + 8, set, row, record);
  std::memcpy(h.data() + 4, &crc, 4);
  spill_.append(std::string(h.data(), h.size()));
  spill_.append(std::string(set));
  Entry e;
  e.row = spill_.append(row);
  e.record = spill_.append(record);
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

std::optional<std::size_t> SelectionJournal::replay(
    const std::string& path,
    const std::function<void(std::string_view, const std::string&, const std::string&)>& fn) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  std::string magic(kFileMagic.size(), '\0');
  if (!in || !in.read(magic.data(), static_cast<std::streamsize>(magic.size())) ||
      magic != kFileMagic) {
    throw DataError("'" + path +
                    "' is not a selection journal this perfit writes (its first bytes); remove "
                    "it to select every set again");
  }
  std::uint64_t at = kFileMagic.size();
  std::size_t n = 0;
  std::string set, row, record;
  std::array<char, kHeaderBytes> h{};
  const auto take = [&](std::string& s, std::uint64_t len) {
    s.resize(len);
    return static_cast<bool>(in.read(s.data(), static_cast<std::streamsize>(len)));
  };
  while (at < size) {
    bool whole = size - at >= kHeaderBytes && in.read(h.data(), kHeaderBytes) &&
                 std::memcmp(h.data(), kEntryMagic.data(), 4) == 0;
    std::uint64_t len[3] = {};
    if (whole) {
      for (int k = 0; k < 3; ++k) len[k] = load_le<std::uint64_t>(h.data() + 8 + 8 * k);
      const std::uint64_t left = size - at - kHeaderBytes;
      // Each length checked against what the file holds before anything is allocated.
      whole = len[0] <= left && len[1] <= left - len[0] && len[2] <= left - len[0] - len[1] &&
              take(set, len[0]) && take(row, len[1]) && take(record, len[2]) &&
              crc_of(h.data() + 8, set, row, record) == load_le<std::uint32_t>(h.data() + 4);
    }
    if (!whole) {
      spdlog::warn(
          "'{}': its last {} bytes are not whole entries (a write cut short by a "
          "kill, or damaged): the {} entries before them are taken",
          path, size - at, n);
      break;
    }
    fn(set, row, record);
    ++n;
    at += kHeaderBytes + len[0] + len[1] + len[2];
  }
  return n;
}

}  // namespace perfit::io

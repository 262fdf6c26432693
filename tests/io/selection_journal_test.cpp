#include "perfit/io/selection_journal.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <tuple>
#include <vector>

#include "perfit/core/error.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

namespace {

namespace fs = std::filesystem;
using Entry = std::tuple<std::string, std::string, std::string>;

std::string bytes_at(const std::string& path, SelectionJournal::Where w) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(w.offset));
  std::string out(w.size, '\0');
  in.read(out.data(), static_cast<std::streamsize>(w.size));
  return out;
}

// The entries replayed, each also read from the file at the place the replay gave.
std::vector<Entry> replayed(const std::string& path, std::optional<std::size_t>* n = nullptr) {
  std::vector<Entry> out;
  const auto got =
      SelectionJournal::replay(path, [&](std::string_view set, std::string_view row,
                                         std::string_view record, SelectionJournal::Entry at) {
        out.emplace_back(std::string(set), std::string(row), std::string(record));
        EXPECT_EQ(bytes_at(path, at.row), row);
        EXPECT_EQ(bytes_at(path, at.record), record);
      });
  if (n) *n = got ? std::optional<std::size_t>(got->entries) : std::nullopt;
  return out;
}

std::vector<Entry> some_entries() {
  std::vector<Entry> e;
  for (int i = 0; i < 700; ++i) {  // ~2.5 MiB: the write buffer flushes on its own too
    e.emplace_back("/x/" + std::to_string(i), std::string(i % 5 == 0 ? 3000 : 40, 'r'),
                   i % 7 == 3 ? std::string() : std::string(3500, static_cast<char>(i)));
  }
  return e;
}

}  // namespace

TEST(SelectionJournal, EntriesComeBackInOrderAndByPosition) {
  testing_support::TempDir dir;
  const std::string path = SelectionJournal::path_in(dir.file(""));
  const auto entries = some_entries();
  {
    SelectionJournal j(dir.file(""), true);
    std::vector<SelectionJournal::Entry> at;
    for (const auto& [set, row, record] : entries) at.push_back(j.append(set, row, {record}));
    EXPECT_FALSE(fs::exists(path));  // under a temporary name until committed
    j.commit();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      ASSERT_EQ(j.read(at[i].row), std::get<1>(entries[i]));
      ASSERT_EQ(j.read(at[i].record), std::get<2>(entries[i]));
    }
    j.flush();
  }
  std::optional<std::size_t> n;
  EXPECT_EQ(replayed(path, &n), entries);
  EXPECT_EQ(n, entries.size());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.file("")), fs::directory_iterator()), 1);
}

TEST(SelectionJournal, AnEntryCutShortOrDamagedEndsTheReplayThere) {
  testing_support::TempDir dir;
  const std::string path = SelectionJournal::path_in(dir.file(""));
  const auto entries = some_entries();
  {
    SelectionJournal j(dir.file(""), true);
    for (const auto& [set, row, record] : entries) j.append(set, row, {record});
    j.commit();
    j.flush();
  }
  const auto size = fs::file_size(path);
  for (const std::uintmax_t cut : {size - 1, size - 3000, size - 3578 - 100}) {
    fs::resize_file(path, cut);
    const auto got = replayed(path);
    ASSERT_LT(got.size(), entries.size());
    EXPECT_GE(got.size(), entries.size() - 2) << cut;
    EXPECT_TRUE(std::equal(got.begin(), got.end(), entries.begin())) << cut;
  }
  {  // one byte of the 100th entry's record changed: its CRC no longer holds
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    std::uintmax_t at = 8;
    for (std::size_t i = 0; i < 100; ++i) {
      at += 32 + std::get<0>(entries[i]).size() + std::get<1>(entries[i]).size() +
            std::get<2>(entries[i]).size();
    }
    f.seekp(static_cast<std::streamoff>(at + 32 + 6 + 3000 + 5));
    f.put('!');
  }
  EXPECT_EQ(replayed(path).size(), 100u);
}

// A resume continues a killed run's journal where it is: its whole entries kept in place (the
// same file, not a copy), a torn tail cut off, new entries after them; no temporary file left.
TEST(SelectionJournal, AResumeContinuesTheFileInPlace) {
  testing_support::TempDir dir;
  const std::string path = SelectionJournal::path_in(dir.file(""));
  auto entries = some_entries();
  {
    SelectionJournal j(dir.file(""), true);
    for (const auto& [set, row, record] : entries) j.append(set, row, {record});
    j.commit();
    j.flush();
  }
  fs::resize_file(path, fs::file_size(path) - 100);  // the last entry torn
  entries.pop_back();
  const auto inode = [&] {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0);
    return st.st_ino;
  };
  const auto before = inode();
  std::vector<SelectionJournal::Entry> at;
  const auto got =
      SelectionJournal::replay(path, [&](std::string_view, std::string_view, std::string_view,
                                         SelectionJournal::Entry e) { at.push_back(e); });
  ASSERT_TRUE(got);
  ASSERT_EQ(got->entries, entries.size());
  {
    SelectionJournal j(dir.file(""), true);
    j.continue_in(dir.file(""), *got);
    EXPECT_EQ(fs::file_size(path), got->bytes);  // the torn tail cut off
    EXPECT_EQ(j.read(at[10].record), std::get<2>(entries[10]));
    for (int i = 0; i < 3; ++i) {
      entries.emplace_back("/y/" + std::to_string(i), "row " + std::to_string(i), "record");
      // The record in parts (one with its configuration replaced): one record when read back.
      const auto e =
          j.append("/y/" + std::to_string(i), "row " + std::to_string(i), {"rec", "", "ord"});
      EXPECT_EQ(j.read(e.row), "row " + std::to_string(i));
      EXPECT_EQ(j.read(e.record), "record");
    }
    j.commit();  // already under its name: nothing to do
    j.flush();
  }
  EXPECT_EQ(inode(), before);
  EXPECT_EQ(replayed(path), entries);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.file("")), fs::directory_iterator()), 1);
}

TEST(SelectionJournal, NoFileOrAnotherFileOrAnUnnamedOne) {
  testing_support::TempDir dir;
  const std::string path = SelectionJournal::path_in(dir.file(""));
  std::optional<std::size_t> n = 5;
  EXPECT_TRUE(replayed(path, &n).empty());
  EXPECT_FALSE(n.has_value());
  std::ofstream(path) << "set,status\n/x/0,ok\n";
  EXPECT_THAT([&] { replayed(path); },
              testing::ThrowsMessage<DataError>(testing::HasSubstr("'" + path + "'")));
  fs::remove(path);
  {
    SelectionJournal j(dir.file(""), false);
    j.append("/x/0", "row", {"record"});
    j.commit();  // nothing to name
    j.flush();
    EXPECT_TRUE(fs::is_empty(dir.file("")));
  }
  {  // named, never committed (an error before the run began): nothing left
    SelectionJournal j(dir.file(""), true);
    j.append("/x/0", "row", {"record"});
    EXPECT_FALSE(fs::is_empty(dir.file("")));
  }
  EXPECT_TRUE(fs::is_empty(dir.file("")));
  {
    SelectionJournal j(dir.file(""), true);
    j.commit();
    EXPECT_TRUE(fs::exists(path));
    j.remove();
    EXPECT_FALSE(fs::exists(path));
  }
}

}  // namespace perfit::io

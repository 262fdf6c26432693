#include "store_pack.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "column_gather.hpp"
#include "h5_attributes.hpp"
#include "h5_columns.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/file_identity.hpp"
#include "perfit/io/store_format.hpp"

namespace perfit::io::detail {

using data::AttributeValue;
using data::Column;
using data::ColumnType;

namespace {

std::vector<std::int64_t> read_ints(hid_t group, const std::string& name, std::size_t n,
                                    const std::string& w) {
  H5Dataset d(
      h5_check(H5Dopen2(group, name.c_str(), H5P_DEFAULT), "open " + w + " index '" + name + "'"));
  H5Dataspace sp(h5_check(H5Dget_space(d.get()), "space of " + w));
  if (H5Sget_simple_extent_npoints(sp.get()) != static_cast<hssize_t>(n)) {
    throw DataError(w + " index '" + name + "' has " +
                    std::to_string(H5Sget_simple_extent_npoints(sp.get())) +
                    " entries, 'set' has " + std::to_string(n) + "; the pack is damaged");
  }
  return read_column(d.get(), {name, ColumnType::int64}, 0, n, w).i64();
}

std::size_t length_of(hid_t dset, const std::string& w) {
  H5Dataspace sp(h5_check(H5Dget_space(dset), "space of " + w));
  if (H5Sget_simple_extent_ndims(sp.get()) != 1) throw DataError(w + " is not 1-D");
  return static_cast<std::size_t>(H5Sget_simple_extent_npoints(sp.get()));
}

}  // namespace

namespace {

std::vector<ColumnInfo> datasets_of(hid_t pack, const char* group, std::size_t length,
                                    const std::string& w) {
  H5Group g(h5_check(H5Gopen2(pack, group, H5P_DEFAULT), "open " + w + " " + group));
  std::vector<ColumnInfo> out;
  for (const auto& name : member_names(g.get())) {
    const std::string wd = w + " " + group + " '" + name + "'";
    H5Dataset d(h5_check(H5Dopen2(g.get(), name.c_str(), H5P_DEFAULT), "open " + wd));
    const std::size_t n = length_of(d.get(), wd);
    if (n != length)
      throw DataError(wd + " has " + std::to_string(n) + " entries, expected " +
                      std::to_string(length));
    out.push_back({name, column_type_of(d.get(), wd)});
  }
  return out;
}

void check_index(const PackIndex& x, std::size_t total_rows, const std::string& w) {
  for (std::size_t i = 0; i < x.names.size(); ++i) {
    if (i > 0 && !(x.names[i - 1] < x.names[i])) {
      throw DataError(w + " index 'set' is not sorted and unique at entry " + std::to_string(i) +
                      " ('" + x.names[i] + "')");
    }
    if (x.first[i] < 0 || x.rows[i] < 0 ||
        static_cast<std::size_t>(x.first[i] + x.rows[i]) > total_rows) {
      throw DataError(w + " set '" + x.names[i] + "': rows [" + std::to_string(x.first[i]) + ", +" +
                      std::to_string(x.rows[i]) + ") are outside the pack's " +
                      std::to_string(total_rows) + " rows");
    }
  }
}

}  // namespace

struct PackIndex::Blocks {
  static constexpr std::size_t kBytes = std::size_t{64} << 20;
  std::mutex m;
  // (pack, attribute, k, block)
  std::map<std::tuple<const PackIndex*, bool, std::size_t, std::size_t>, Column> decoded;
  std::size_t bytes = 0;
  // Datasets whose whole extent check_readable has passed: it walks every chunk, and checking
  // each block made a selection over 10^6 sets quadratic in them.
  std::set<std::tuple<const PackIndex*, bool, std::size_t>> checked;  // (pack, attribute, k)
};

struct PackedSets::Directory {
  std::vector<std::shared_ptr<const PackIndex>> indexes;
  // With several packs (an import writes one per 65,536 sets), every set as (pack, index in
  // it) sorted by name: one binary search finds a set, where a search per pack was most of
  // `inspect` over the 16 packs of 10^6 sets.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sorted;

  const std::string& name(const std::pair<std::uint32_t, std::uint32_t>& e) const {
    return indexes[e.first]->names[e.second];
  }
};

namespace {

std::size_t bytes_of(const Column& c) {
  if (c.type() != ColumnType::string) return 8 * c.size();
  std::size_t n = 0;
  for (const auto& v : c.str()) n += sizeof(std::string) + v.size();
  return n;
}

std::shared_ptr<const PackIndex> read_index(hid_t file, const std::string& path,
                                            const std::string& where,
                                            std::shared_ptr<PackIndex::Blocks> blocks) {
  const std::string w = where + " pack '" + path + "'";
  auto x = std::make_shared<PackIndex>();
  x->path = path;
  x->blocks = std::move(blocks);
  H5Group pack(h5_check(H5Gopen2(file, path.c_str(), H5P_DEFAULT), "open " + w));
  x->shared = read_attributes(pack.get(), w);
  const auto version = x->shared.find(kPackAttribute);
  if (version == x->shared.end() || data::attribute_text(version->second) != kPackVersion) {
    throw DataError(
        w + " has " + kPackAttribute + "='" +
        (version == x->shared.end() ? std::string() : data::attribute_text(version->second)) +
        "', expected '" + kPackVersion +
        "'. It was written by another perfit version; re-import it");
  }
  x->shared.erase(version);
  x->shared[kFormatAttribute] = std::string(kFormatVersion);
  H5Group index(h5_check(H5Gopen2(pack.get(), kPackIndex, H5P_DEFAULT), "open " + w + " index"));
  {
    H5Dataset d(h5_check(H5Dopen2(index.get(), "set", H5P_DEFAULT), "open " + w + " index 'set'"));
    x->names = read_column(d.get(), {"set", ColumnType::string}, 0, length_of(d.get(), w), w).str();
  }
  x->first = read_ints(index.get(), "first", x->names.size(), w);
  x->rows = read_ints(index.get(), "rows", x->names.size(), w);
  x->varying = datasets_of(pack.get(), kPackAttributes, x->names.size(), w);
  H5Group cols(h5_check(H5Gopen2(pack.get(), kPackColumns, H5P_DEFAULT), "open " + w + " columns"));
  if (detail::member_names(cols.get()).empty()) throw DataError(w + " has no column datasets");
  H5Dataset d0(
      h5_check(H5Dopen2(cols.get(), detail::member_names(cols.get()).front().c_str(), H5P_DEFAULT),
               "open " + w));
  const std::size_t total = length_of(d0.get(), w);
  x->total_rows = total;
  x->columns = datasets_of(pack.get(), kPackColumns, total, w);
  check_index(*x, total, w);
  return x;
}

// The indexes of the files opened last, by identity (device, inode, size, modification time):
// a file changed or replaced is read again.
struct IndexMemo {
  std::mutex m;
  std::deque<std::pair<FileIdentity, std::shared_ptr<const PackedSets::Directory>>> files;
  static constexpr std::size_t kFiles = 4;
};
IndexMemo& index_memo() {
  static IndexMemo memo;
  return memo;
}

// Each pack's names are sorted: merged, not sorted again.
std::vector<std::pair<std::uint32_t, std::uint32_t>> merged(const PackedSets::Directory& d) {
  using Entry = std::pair<std::uint32_t, std::uint32_t>;
  std::vector<Entry> out;
  const auto later = [&](const Entry& a, const Entry& b) { return d.name(b) < d.name(a); };
  std::vector<Entry> heads;
  for (std::uint32_t k = 0; k < d.indexes.size(); ++k) {
    if (!d.indexes[k]->names.empty()) heads.push_back({k, 0});
  }
  std::make_heap(heads.begin(), heads.end(), later);
  while (!heads.empty()) {
    std::pop_heap(heads.begin(), heads.end(), later);
    Entry e = heads.back();
    out.push_back(e);
    if (++e.second < d.indexes[e.first]->names.size()) {
      heads.back() = e;
      std::push_heap(heads.begin(), heads.end(), later);
    } else {
      heads.pop_back();
    }
  }
  return out;
}

std::shared_ptr<const PackedSets::Directory> read_directory(hid_t file,
                                                            const std::string& file_name) {
  auto d = std::make_shared<PackedSets::Directory>();
  auto blocks = std::make_shared<PackIndex::Blocks>();
  H5Group root(
      h5_check(H5Gopen2(file, kPackRoot, H5P_DEFAULT), "open '" + file_name + "' " + kPackRoot));
  for (const auto& name : member_names(root.get())) {
    d->indexes.push_back(
        read_index(file, std::string(kPackRoot) + "/" + name, "'" + file_name + "'", blocks));
  }
  if (d->indexes.size() > 1) d->sorted = merged(*d);
  return d;
}

}  // namespace

Pack::Pack(hid_t file, std::shared_ptr<const PackIndex> index, std::string where)
    : file_(file),
      index_(std::move(index)),
      where_(std::move(where) + " pack '" + index_->path + "'"),
      varying_sets_(index_->varying.size()),
      column_sets_(index_->columns.size()) {}

hid_t Pack::dataset(std::vector<H5Dataset>& open, std::size_t k, const char* group,
                    const std::string& name) const {
  if (!open[k].valid()) {
    const std::string p = index_->path + "/" + group + "/" + name;
    open[k] = H5Dataset(h5_check(H5Dopen2(file_, p.c_str(), H5P_DEFAULT),
                                 "open " + where_ + " " + group + " '" + name + "'"));
  }
  return open[k].get();
}

std::optional<std::size_t> Pack::find(const std::string& set) const {
  const auto& names = index_->names;
  const auto it = std::lower_bound(names.begin(), names.end(), set);
  if (it == names.end() || *it != set) return std::nullopt;
  return static_cast<std::size_t>(it - names.begin());
}

Column Pack::slice(bool attribute, std::size_t k, std::size_t begin, std::size_t count) const {
  const ColumnInfo& ci = attribute ? index_->varying[k] : index_->columns[k];
  Gather out(ci.name, ci.type);
  const std::size_t length = attribute ? index_->names.size() : index_->total_rows;
  PackIndex::Blocks& cache = *index_->blocks;
  std::lock_guard<std::mutex> lock(cache.m);
  for (std::size_t at = begin; at < begin + count;) {
    const std::size_t b = at / kPackChunkRows, first = b * kPackChunkRows;
    auto it = cache.decoded.find({index_.get(), attribute, k, b});
    if (it == cache.decoded.end()) {
      if (cache.bytes > PackIndex::Blocks::kBytes) {
        cache.decoded.clear();
        cache.bytes = 0;
      }
      const hid_t d = attribute ? dataset(varying_sets_, k, kPackAttributes, ci.name)
                                : dataset(column_sets_, k, kPackColumns, ci.name);
      const std::string w = where_ + (attribute ? " attribute '" : " column '") + ci.name + "'";
      if (!cache.checked.count({index_.get(), attribute, k})) {
        check_readable(d, 0, length, w);
        cache.checked.insert({index_.get(), attribute, k});
      }
      Column block = read_column(d, ci, first, std::min(kPackChunkRows, length - first), w, true);
      cache.bytes += bytes_of(block);
      it = cache.decoded.emplace(std::make_tuple(index_.get(), attribute, k, b), std::move(block))
               .first;
    }
    const std::size_t to = std::min(begin + count, first + it->second.size());
    out.add(it->second, at - first, to - first);
    at = to;
  }
  return out.take();
}

std::optional<AttributeValue> Pack::attribute(std::size_t i, const std::string& name) const {
  for (std::size_t k = 0; k < index_->varying.size(); ++k) {
    const ColumnInfo& v = index_->varying[k];
    if (v.name != name) continue;
    const Column c = slice(true, k, i, 1);
    if (c.type() == ColumnType::float64) return c.f64().front();
    if (c.type() == ColumnType::int64) return c.i64().front();
    return c.str().front();
  }
  const auto it = index_->shared.find(name);
  if (it == index_->shared.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Pack::attribute_texts(const std::string& name) const {
  const std::size_t n = index_->names.size();
  for (std::size_t k = 0; k < index_->varying.size(); ++k) {
    const ColumnInfo& ci = index_->varying[k];
    if (ci.name != name) continue;
    // Not through the block cache: block by block, 10^6 sets' checksums were copied into it,
    // out of it and twice more, ~0.4 s of a 10^6-set batch's start (most of it the kernel
    // zeroing fresh pages for the copies).
    Column c = [&] {
      PackIndex::Blocks& cache = *index_->blocks;
      const std::lock_guard<std::mutex> lock(cache.m);  // the opened datasets are shared too
      const hid_t d = dataset(varying_sets_, k, kPackAttributes, ci.name);
      const std::string w = where_ + " attribute '" + ci.name + "'";
      check_fits_in_memory(row_bytes(d, ci, w) * static_cast<double>(n), n, 1, w);
      const bool checked = cache.checked.count({index_.get(), true, k}) > 0;
      Column read = read_column(d, ci, 0, n, w, checked);
      cache.checked.insert({index_.get(), true, k});
      return read;
    }();
    if (c.type() == ColumnType::string) return std::move(c.str());
    std::vector<std::string> out;
    out.reserve(n);
    for (std::size_t i = 0; i < c.size(); ++i) {
      out.push_back(data::attribute_text(c.type() == ColumnType::float64
                                             ? data::AttributeValue(c.f64()[i])
                                             : data::AttributeValue(c.i64()[i])));
    }
    return out;
  }
  const auto it = index_->shared.find(name);
  return std::vector<std::string>(
      n, it == index_->shared.end() ? std::string() : data::attribute_text(it->second));
}

SetInfo Pack::info(std::size_t i) const {
  SetInfo si{index_->names[i], rows(i), index_->columns, index_->shared};
  for (const auto& v : index_->varying) si.attributes[v.name] = *attribute(i, v.name);
  return si;
}

data::MeasurementTable Pack::read(std::size_t i, const std::vector<ColumnInfo>& wanted,
                                  std::size_t begin, std::size_t end) const {
  data::MeasurementTable t;
  const auto& cols = index_->columns;
  for (const auto& ci : wanted) {
    const auto k = static_cast<std::size_t>(
        std::find_if(cols.begin(), cols.end(),
                     [&](const ColumnInfo& c) { return c.name == ci.name; }) -
        cols.begin());
    if (k == cols.size()) throw DataError(where_ + " has no column '" + ci.name + "'");
    t.add_column(slice(false, k, static_cast<std::size_t>(index_->first[i]) + begin, end - begin));
  }
  return t;
}

PackedSets::PackedSets(hid_t file, const std::string& file_name) {
  if (H5Lexists(file, kPackRoot, H5P_DEFAULT) <= 0) return;
  const auto key = file_identity(file_name);
  {
    std::lock_guard<std::mutex> lock(index_memo().m);
    for (const auto& [k, v] : index_memo().files) {
      if (key && k == *key) directory_ = v;
    }
  }
  if (!directory_) {
    directory_ = read_directory(file, file_name);
    std::lock_guard<std::mutex> lock(index_memo().m);
    auto& files = index_memo().files;
    if (key) files.emplace_back(*key, directory_);
    if (files.size() > IndexMemo::kFiles) files.pop_front();
  }
  for (const auto& x : directory_->indexes) packs_.emplace_back(file, x, "'" + file_name + "'");
}

std::optional<PackedSets::Hit> PackedSets::find(const std::string& set) const {
  if (packs_.size() == 1) {
    if (const auto i = packs_.front().find(set)) return Hit{&packs_.front(), *i, *i};
    return std::nullopt;
  }
  if (!directory_) return std::nullopt;
  const Directory& d = *directory_;
  const auto it = std::lower_bound(d.sorted.begin(), d.sorted.end(), set,
                                   [&](const std::pair<std::uint32_t, std::uint32_t>& e,
                                       const std::string& s) { return d.name(e) < s; });
  if (it == d.sorted.end() || d.name(*it) != set) return std::nullopt;
  return Hit{&packs_[it->first], it->second, static_cast<std::size_t>(it - d.sorted.begin())};
}

std::optional<PackedSets::Hit> PackedSets::find_after(const Hit& last,
                                                      const std::string& set) const {
  const std::size_t next = last.order + 1;
  if (packs_.size() == 1) {
    if (next < packs_.front().sets().size() && packs_.front().sets()[next] == set)
      return Hit{&packs_.front(), next, next};
  } else if (directory_ && next < directory_->sorted.size() &&
             directory_->name(directory_->sorted[next]) == set) {
    const auto& e = directory_->sorted[next];
    return Hit{&packs_[e.first], e.second, next};
  }
  return find(set);
}

std::vector<std::string> PackedSets::names() const {
  if (packs_.size() == 1) return packs_.front().sets();
  std::vector<std::string> out;
  if (!directory_) return out;
  out.reserve(directory_->sorted.size());
  for (const auto& e : directory_->sorted) out.push_back(directory_->name(e));
  return out;
}

}  // namespace perfit::io::detail

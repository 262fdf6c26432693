#include "store_pack.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "h5_attributes.hpp"
#include "h5_columns.hpp"
#include "perfit/core/error.hpp"
#include "perfit/data/checksum.hpp"
#include "perfit/io/file_identity.hpp"
#include "perfit/io/store_format.hpp"

namespace perfit::io::detail {

using data::AttributeValue;
using data::Column;
using data::ColumnType;

namespace {

constexpr const char* kIndex = "index";
constexpr const char* kAttributes = "attributes";
constexpr const char* kColumns = "columns";

// Creation order tracked: columns read back in the order they were written.
H5Group ordered_group(hid_t parent, const std::string& name, const std::string& where) {
  H5Plist lcpl(h5_check(H5Pcreate(H5P_LINK_CREATE), "link creation plist"));
  h5_check_status(H5Pset_create_intermediate_group(lcpl.get(), 1), "intermediate groups");
  H5Plist gcpl(h5_check(H5Pcreate(H5P_GROUP_CREATE), "group creation plist"));
  h5_check_status(
      H5Pset_link_creation_order(gcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
      "track creation order");
  return H5Group(h5_check(H5Gcreate2(parent, name.c_str(), lcpl.get(), gcpl.get(), H5P_DEFAULT),
                          "create " + where + " group '" + name + "'"));
}

ColumnType kind_of(const AttributeValue& v) {
  if (std::holds_alternative<double>(v)) return ColumnType::float64;
  if (std::holds_alternative<std::int64_t>(v)) return ColumnType::int64;
  return ColumnType::string;
}

void write_whole(hid_t group, const Column& col, std::size_t chunk_rows, const std::string& where) {
  // Strings fixed-length: text repeated over 10^5 rows compresses; a heap entry per value does not.
  if (col.type() == ColumnType::string) {
    write_fixed_strings(group, col.name(), col.str(), chunk_rows, where);
    return;
  }
  H5Dataset d = create_column(group, {col.name(), col.type()}, col.size(), chunk_rows, where);
  if (col.size() > 0)
    write_column(d.get(), col.type(), col, 0, "write " + where + " dataset '" + col.name() + "'");
}

// The sets' values of one attribute as a column of its kind.
Column attribute_column(const std::string& name, const std::vector<data::Attributes>& all) {
  switch (kind_of(all.front().at(name))) {
    case ColumnType::float64: {
      std::vector<double> v;
      for (const auto& a : all) v.push_back(std::get<double>(a.at(name)));
      return Column(name, std::move(v));
    }
    case ColumnType::int64: {
      std::vector<std::int64_t> v;
      for (const auto& a : all) v.push_back(std::get<std::int64_t>(a.at(name)));
      return Column(name, std::move(v));
    }
    case ColumnType::string:
      break;
  }
  std::vector<std::string> v;
  for (const auto& a : all) v.push_back(std::get<std::string>(a.at(name)));
  return Column(name, std::move(v));
}

// Values of one column gathered from pieces of others (sets, decoded blocks), then one Column.
class Gather {
 public:
  Gather(std::string name, ColumnType type) : name_(std::move(name)), type_(type) {}
  void reserve(std::size_t n) {
    if (type_ == ColumnType::float64) f64_.reserve(n);
    if (type_ == ColumnType::int64) i64_.reserve(n);
    if (type_ == ColumnType::string) str_.reserve(n);
  }
  void add(const Column& c, std::size_t from, std::size_t to) {
    const auto f = static_cast<std::ptrdiff_t>(from), t = static_cast<std::ptrdiff_t>(to);
    if (type_ == ColumnType::float64)
      f64_.insert(f64_.end(), c.f64().begin() + f, c.f64().begin() + t);
    if (type_ == ColumnType::int64)
      i64_.insert(i64_.end(), c.i64().begin() + f, c.i64().begin() + t);
    if (type_ == ColumnType::string)
      str_.insert(str_.end(), c.str().begin() + f, c.str().begin() + t);
  }
  Column take() {
    if (type_ == ColumnType::float64) return Column(name_, std::move(f64_));
    if (type_ == ColumnType::int64) return Column(name_, std::move(i64_));
    return Column(name_, std::move(str_));
  }

 private:
  std::string name_;
  ColumnType type_;
  std::vector<double> f64_;
  std::vector<std::int64_t> i64_;
  std::vector<std::string> str_;
};

// One column of every set, back to back.
Column concatenated(const std::string& name, ColumnType type, const std::vector<NamedTable>& sets) {
  Gather g(name, type);
  std::size_t rows = 0;
  for (const auto& [path, t] : sets) rows += t->rows();
  g.reserve(rows);  // 10^6 sets: growing by doubling was a tenth of an import
  for (const auto& [path, t] : sets) g.add(t->column(name), 0, t->rows());
  return g.take();
}

}  // namespace

std::string pack_signature(const data::MeasurementTable& t) {
  std::string sig;
  for (const auto& c : t.columns()) sig += c.name() + ":" + to_string(c.type()) + ";";
  sig += "|";
  for (const auto& [k, v] : t.attributes()) {
    if (k != "checksum" && k != kFormatAttribute) sig += k + ":" + std::to_string(v.index()) + ";";
  }
  return sig;
}

void write_pack(hid_t file, const std::string& path, std::vector<NamedTable> sets,
                const std::string& where) {
  std::sort(sets.begin(), sets.end(),
            [](const NamedTable& a, const NamedTable& b) { return a.first < b.first; });
  const std::string w = where + " pack '" + path + "'";
  std::vector<data::Attributes> attrs;
  std::vector<std::string> names;
  std::vector<std::int64_t> first, rows;
  std::size_t total = 0;
  for (const auto& [name, t] : sets) {
    attrs.push_back(t->attributes());
    attrs.back().erase(kFormatAttribute);
    attrs.back()["checksum"] = data::table_checksum(*t);
    names.push_back(name);
    first.push_back(static_cast<std::int64_t>(total));
    rows.push_back(static_cast<std::int64_t>(t->rows()));
    total += t->rows();
  }
  H5Group pack = ordered_group(file, path, where);
  write_attribute(pack.get(), kPackAttribute, std::string(kPackVersion));
  H5Group varying = ordered_group(pack.get(), kAttributes, w);
  for (const auto& entry : attrs.front()) {
    const std::string& key = entry.first;
    const bool same = std::all_of(attrs.begin(), attrs.end(), [&](const data::Attributes& a) {
      return a.at(key) == entry.second;
    });
    if (same)
      write_attribute(pack.get(), key, entry.second);
    else
      write_whole(varying.get(), attribute_column(key, attrs), kPackChunkRows, w);
  }
  H5Group index = ordered_group(pack.get(), kIndex, w);
  write_whole(index.get(), Column("set", std::move(names)), kPackChunkRows, w);
  write_whole(index.get(), Column("first", std::move(first)), kPackChunkRows, w);
  write_whole(index.get(), Column("rows", std::move(rows)), kPackChunkRows, w);
  H5Group columns = ordered_group(pack.get(), kColumns, w);
  for (const auto& c : sets.front().second->columns()) {
    write_whole(columns.get(), concatenated(c.name(), c.type(), sets), kPackChunkRows, w);
  }
}

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
  std::map<std::tuple<bool, std::size_t, std::size_t>, Column> decoded;  // (attribute, k, block)
  std::size_t bytes = 0;
  // Datasets whose whole extent check_readable has passed: it walks every chunk, and checking
  // each block made a selection over 10^6 sets quadratic in them.
  std::set<std::pair<bool, std::size_t>> checked;  // (attribute, k)
};

namespace {

std::size_t bytes_of(const Column& c) {
  if (c.type() != ColumnType::string) return 8 * c.size();
  std::size_t n = 0;
  for (const auto& v : c.str()) n += sizeof(std::string) + v.size();
  return n;
}

std::shared_ptr<const PackIndex> read_index(hid_t file, const std::string& path,
                                            const std::string& where) {
  const std::string w = where + " pack '" + path + "'";
  auto x = std::make_shared<PackIndex>();
  x->path = path;
  x->blocks = std::make_shared<PackIndex::Blocks>();
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
  H5Group index(h5_check(H5Gopen2(pack.get(), kIndex, H5P_DEFAULT), "open " + w + " index"));
  {
    H5Dataset d(h5_check(H5Dopen2(index.get(), "set", H5P_DEFAULT), "open " + w + " index 'set'"));
    x->names = read_column(d.get(), {"set", ColumnType::string}, 0, length_of(d.get(), w), w).str();
  }
  x->first = read_ints(index.get(), "first", x->names.size(), w);
  x->rows = read_ints(index.get(), "rows", x->names.size(), w);
  x->varying = datasets_of(pack.get(), kAttributes, x->names.size(), w);
  H5Group cols(h5_check(H5Gopen2(pack.get(), kColumns, H5P_DEFAULT), "open " + w + " columns"));
  if (detail::member_names(cols.get()).empty()) throw DataError(w + " has no column datasets");
  H5Dataset d0(
      h5_check(H5Dopen2(cols.get(), detail::member_names(cols.get()).front().c_str(), H5P_DEFAULT),
               "open " + w));
  const std::size_t total = length_of(d0.get(), w);
  x->total_rows = total;
  x->columns = datasets_of(pack.get(), kColumns, total, w);
  check_index(*x, total, w);
  return x;
}

// The indexes of the files opened last, by identity (device, inode, size, modification time):
// a file changed or replaced is read again.
struct IndexMemo {
  std::mutex m;
  std::deque<std::pair<FileIdentity, std::vector<std::shared_ptr<const PackIndex>>>> files;
  static constexpr std::size_t kFiles = 4;
};
IndexMemo& index_memo() {
  static IndexMemo memo;
  return memo;
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
    auto it = cache.decoded.find({attribute, k, b});
    if (it == cache.decoded.end()) {
      if (cache.bytes > PackIndex::Blocks::kBytes) {
        cache.decoded.clear();
        cache.bytes = 0;
      }
      const hid_t d = attribute ? dataset(varying_sets_, k, kAttributes, ci.name)
                                : dataset(column_sets_, k, kColumns, ci.name);
      const std::string w = where_ + (attribute ? " attribute '" : " column '") + ci.name + "'";
      if (!cache.checked.count({attribute, k})) {
        check_readable(d, 0, length, w);
        cache.checked.insert({attribute, k});
      }
      Column block = read_column(d, ci, first, std::min(kPackChunkRows, length - first), w, true);
      cache.bytes += bytes_of(block);
      it = cache.decoded.emplace(std::make_tuple(attribute, k, b), std::move(block)).first;
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
  std::vector<std::shared_ptr<const PackIndex>> indexes;
  {
    std::lock_guard<std::mutex> lock(index_memo().m);
    for (const auto& [k, v] : index_memo().files) {
      if (key && k == *key) indexes = v;
    }
  }
  if (indexes.empty()) {
    H5Group root(
        h5_check(H5Gopen2(file, kPackRoot, H5P_DEFAULT), "open '" + file_name + "' " + kPackRoot));
    for (const auto& name : member_names(root.get())) {
      indexes.push_back(
          read_index(file, std::string(kPackRoot) + "/" + name, "'" + file_name + "'"));
    }
    std::lock_guard<std::mutex> lock(index_memo().m);
    auto& files = index_memo().files;
    if (key) files.emplace_back(*key, indexes);
    if (files.size() > IndexMemo::kFiles) files.pop_front();
  }
  for (auto& x : indexes) packs_.emplace_back(file, std::move(x), "'" + file_name + "'");
}

std::optional<PackedSets::Hit> PackedSets::find(const std::string& set) const {
  for (const auto& p : packs_) {
    if (const auto i = p.find(set)) return Hit{&p, *i};
  }
  return std::nullopt;
}

}  // namespace perfit::io::detail

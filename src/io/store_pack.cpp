#include "store_pack.hpp"

#include <algorithm>
#include <map>

#include "h5_attributes.hpp"
#include "h5_columns.hpp"
#include "perfit/core/error.hpp"
#include "perfit/data/checksum.hpp"
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
  h5_check_status(H5Pset_link_creation_order(gcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
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
  if (col.size() > 0) write_column(d.get(), col.type(), col, 0, "write " + where + " dataset '" + col.name() + "'");
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
    case ColumnType::string: break;
  }
  std::vector<std::string> v;
  for (const auto& a : all) v.push_back(std::get<std::string>(a.at(name)));
  return Column(name, std::move(v));
}

// One column of every set, back to back.
Column concatenated(const std::string& name, ColumnType type, const std::vector<NamedTable>& sets, std::size_t total) {
  std::vector<double> f;
  std::vector<std::int64_t> i;
  std::vector<std::string> s;
  (type == ColumnType::float64 ? f.reserve(total) : type == ColumnType::int64 ? i.reserve(total) : s.reserve(total));
  for (const auto& [path, t] : sets) {
    const Column& c = t->column(name);
    if (type == ColumnType::float64) f.insert(f.end(), c.f64().begin(), c.f64().end());
    if (type == ColumnType::int64) i.insert(i.end(), c.i64().begin(), c.i64().end());
    if (type == ColumnType::string) s.insert(s.end(), c.str().begin(), c.str().end());
  }
  if (type == ColumnType::float64) return Column(name, std::move(f));
  if (type == ColumnType::int64) return Column(name, std::move(i));
  return Column(name, std::move(s));
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

void write_pack(hid_t file, const std::string& path, std::vector<NamedTable> sets, const std::string& where) {
  std::sort(sets.begin(), sets.end(), [](const NamedTable& a, const NamedTable& b) { return a.first < b.first; });
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
  for (const auto& [key, value] : attrs.front()) {
    const bool same = std::all_of(attrs.begin(), attrs.end(), [&](const data::Attributes& a) { return a.at(key) == value; });
    if (same) write_attribute(pack.get(), key, value);
    else write_whole(varying.get(), attribute_column(key, attrs), kPackChunkRows, w);
  }
  H5Group index = ordered_group(pack.get(), kIndex, w);
  write_whole(index.get(), Column("set", std::move(names)), kPackChunkRows, w);
  write_whole(index.get(), Column("first", std::move(first)), kPackChunkRows, w);
  write_whole(index.get(), Column("rows", std::move(rows)), kPackChunkRows, w);
  H5Group columns = ordered_group(pack.get(), kColumns, w);
  for (const auto& c : sets.front().second->columns()) {
    write_whole(columns.get(), concatenated(c.name(), c.type(), sets, total), kPackChunkRows, w);
  }
}


namespace {

std::vector<std::int64_t> read_ints(hid_t group, const std::string& name, std::size_t n, const std::string& w) {
  H5Dataset d(h5_check(H5Dopen2(group, name.c_str(), H5P_DEFAULT), "open " + w + " index '" + name + "'"));
  H5Dataspace sp(h5_check(H5Dget_space(d.get()), "space of " + w));
  if (H5Sget_simple_extent_npoints(sp.get()) != static_cast<hssize_t>(n)) {
    throw DataError(w + " index '" + name + "' has " + std::to_string(H5Sget_simple_extent_npoints(sp.get())) +
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

Pack::Pack(hid_t file, std::string path, std::string where)
    : path_(std::move(path)), where_(std::move(where) + " pack '" + path_ + "'") {
  group_ = H5Group(h5_check(H5Gopen2(file, path_.c_str(), H5P_DEFAULT), "open " + where_));
  shared_ = read_attributes(group_.get(), where_);
  const auto version = shared_.find(kPackAttribute);
  if (version == shared_.end() || data::attribute_text(version->second) != kPackVersion) {
    throw DataError(where_ + " has " + kPackAttribute + "='" +
                    (version == shared_.end() ? std::string() : data::attribute_text(version->second)) +
                    "', expected '" + kPackVersion + "'. It was written by another perfit version; re-import it");
  }
  shared_.erase(version);
  shared_[kFormatAttribute] = std::string(kFormatVersion);
  H5Group index(h5_check(H5Gopen2(group_.get(), kIndex, H5P_DEFAULT), "open " + where_ + " index"));
  {
    H5Dataset d(h5_check(H5Dopen2(index.get(), "set", H5P_DEFAULT), "open " + where_ + " index 'set'"));
    names_ = read_column(d.get(), {"set", ColumnType::string}, 0, length_of(d.get(), where_), where_).str();
  }
  first_ = read_ints(index.get(), "first", names_.size(), where_);
  rows_ = read_ints(index.get(), "rows", names_.size(), where_);
  H5Group attrs(h5_check(H5Gopen2(group_.get(), kAttributes, H5P_DEFAULT), "open " + where_ + " attributes"));
  for (const auto& name : member_names(attrs.get())) {
    H5Dataset d(h5_check(H5Dopen2(attrs.get(), name.c_str(), H5P_DEFAULT), "open " + where_ + " attribute '" + name + "'"));
    if (length_of(d.get(), where_) != names_.size()) throw DataError(where_ + " attribute '" + name + "' is not one per set");
    varying_.push_back({{name, column_type_of(d.get(), where_)}, std::move(d)});
  }
  H5Group cols(h5_check(H5Gopen2(group_.get(), kColumns, H5P_DEFAULT), "open " + where_ + " columns"));
  std::size_t total = 0;
  for (const auto& name : member_names(cols.get())) {
    H5Dataset d(h5_check(H5Dopen2(cols.get(), name.c_str(), H5P_DEFAULT), "open " + where_ + " column '" + name + "'"));
    const std::size_t n = length_of(d.get(), where_);
    if (!columns_.empty() && n != total) throw DataError(where_ + " column '" + name + "' has " + std::to_string(n) + " rows, the others " + std::to_string(total));
    total = n;
    columns_.push_back({name, column_type_of(d.get(), where_)});
    column_sets_.push_back(std::move(d));
  }
  if (columns_.empty()) throw DataError(where_ + " has no column datasets");
  check_index(total);
}

void Pack::check_index(std::size_t total_rows) const {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (i > 0 && !(names_[i - 1] < names_[i])) {
      throw DataError(where_ + " index 'set' is not sorted and unique at entry " + std::to_string(i) + " ('" + names_[i] + "')");
    }
    if (first_[i] < 0 || rows_[i] < 0 || static_cast<std::size_t>(first_[i] + rows_[i]) > total_rows) {
      throw DataError(where_ + " set '" + names_[i] + "': rows [" + std::to_string(first_[i]) + ", +" +
                      std::to_string(rows_[i]) + ") are outside the pack's " + std::to_string(total_rows) + " rows");
    }
  }
}

std::optional<std::size_t> Pack::find(const std::string& set) const {
  const auto it = std::lower_bound(names_.begin(), names_.end(), set);
  if (it == names_.end() || *it != set) return std::nullopt;
  return static_cast<std::size_t>(it - names_.begin());
}

std::optional<AttributeValue> Pack::attribute(std::size_t i, const std::string& name) const {
  for (const auto& v : varying_) {
    if (v.info.name != name) continue;
    Column c = read_column(v.dataset.get(), v.info, i, 1, where_ + " attribute '" + name + "'");
    if (c.type() == ColumnType::float64) return c.f64().front();
    if (c.type() == ColumnType::int64) return c.i64().front();
    return c.str().front();
  }
  const auto it = shared_.find(name);
  if (it == shared_.end()) return std::nullopt;
  return it->second;
}

SetInfo Pack::info(std::size_t i) const {
  SetInfo si{names_[i], rows(i), columns_, shared_};
  for (const auto& v : varying_) si.attributes[v.info.name] = *attribute(i, v.info.name);
  return si;
}

data::MeasurementTable Pack::read(std::size_t i, const std::vector<ColumnInfo>& wanted, std::size_t begin,
                                  std::size_t end) const {
  data::MeasurementTable t;
  for (const auto& ci : wanted) {
    const auto k = static_cast<std::size_t>(
        std::find_if(columns_.begin(), columns_.end(), [&](const ColumnInfo& c) { return c.name == ci.name; }) -
        columns_.begin());
    if (k == columns_.size()) throw DataError(where_ + " has no column '" + ci.name + "'");
    const std::size_t at = static_cast<std::size_t>(first_[i]) + begin;
    t.add_column(read_column(column_sets_[k].get(), ci, at, end - begin,
                             where_ + " set '" + names_[i] + "' column '" + ci.name + "'"));
  }
  t.attributes() = info(i).attributes;
  return t;
}

PackedSets::PackedSets(hid_t file, const std::string& file_name) {
  if (H5Lexists(file, kPackRoot, H5P_DEFAULT) <= 0) return;
  H5Group root(h5_check(H5Gopen2(file, kPackRoot, H5P_DEFAULT), "open '" + file_name + "' " + kPackRoot));
  for (const auto& name : member_names(root.get())) {
    packs_.emplace_back(file, std::string(kPackRoot) + "/" + name, "'" + file_name + "'");
  }
}

std::optional<PackedSets::Hit> PackedSets::find(const std::string& set) const {
  for (const auto& p : packs_) {
    if (const auto i = p.find(set)) return Hit{&p, *i};
  }
  return std::nullopt;
}

}  // namespace perfit::io::detail

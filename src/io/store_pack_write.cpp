// Writing a pack: its index, the attributes that vary by set and each column of every set.
#include <algorithm>
#include <string>
#include <vector>

#include "column_gather.hpp"
#include "h5_attributes.hpp"
#include "h5_columns.hpp"
#include "perfit/core/cpu_affinity.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/worker_pool.hpp"
#include "perfit/data/checksum.hpp"
#include "perfit/io/store_format.hpp"
#include "store_pack.hpp"

namespace perfit::io::detail {

using data::AttributeValue;
using data::Column;
using data::ColumnType;

namespace {

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

// One attribute's value in each set of a pack, in set order.
struct AttributeValues {
  std::string name;
  std::vector<const AttributeValue*> values;
};

// Every attribute's values, gathered in one walk over the sets' maps in step: the sets of a
// pack have the same attribute names (pack_signature). A lookup per set and name was a sixth of
// the writing thread's work at 10^6 call paths.
std::vector<AttributeValues> by_name(const std::vector<data::Attributes>& all,
                                     const std::string& where) {
  std::vector<AttributeValues> out;
  for (const auto& entry : all.front()) {
    out.push_back({entry.first, {}});
    out.back().values.reserve(all.size());
  }
  for (const auto& a : all) {
    std::size_t j = 0;
    for (const auto& [name, value] : a) {
      if (j == out.size() || name != out[j].name) break;
      out[j++].values.push_back(&value);
    }
    if (j != out.size() || a.size() != out.size())
      throw DataError(where + ": sets of one pack with other attributes (not written)");
  }
  return out;
}

// The sets' values of one attribute as a column of its kind.
Column attribute_column(const AttributeValues& a) {
  switch (kind_of(*a.values.front())) {
    case ColumnType::float64: {
      std::vector<double> v;
      v.reserve(a.values.size());
      for (const auto* x : a.values) v.push_back(std::get<double>(*x));
      return Column(a.name, std::move(v));
    }
    case ColumnType::int64: {
      std::vector<std::int64_t> v;
      v.reserve(a.values.size());
      for (const auto* x : a.values) v.push_back(std::get<std::int64_t>(*x));
      return Column(a.name, std::move(v));
    }
    case ColumnType::string:
      break;
  }
  std::vector<std::string> v;
  v.reserve(a.values.size());
  for (const auto* x : a.values) v.push_back(std::get<std::string>(*x));
  return Column(a.name, std::move(v));
}

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
  // Each set's attributes and checksum on every CPU, kSetsPerCall sets a call: an import reads
  // its next block of sets meanwhile, and these were a quarter of the writing thread's work at
  // 10^6 call paths, with a core idle half the time.
  constexpr std::size_t kSetsPerCall = 512;
  std::vector<data::Attributes> attrs(sets.size());
  WorkerPool threads(static_cast<unsigned>(std::min<std::size_t>(
                         unbound_cpus(), (sets.size() + kSetsPerCall - 1) / kSetsPerCall)),
                     true);
  threads.for_each((sets.size() + kSetsPerCall - 1) / kSetsPerCall, [&](std::size_t k) {
    for (std::size_t i = k * kSetsPerCall; i < std::min(sets.size(), (k + 1) * kSetsPerCall); ++i) {
      attrs[i] = sets[i].second->attributes();
      attrs[i].erase(kFormatAttribute);
      attrs[i]["checksum"] = data::table_checksum(*sets[i].second);
    }
  });
  std::vector<std::string> names;
  std::vector<std::int64_t> first, rows;
  std::size_t total = 0;
  for (const auto& [name, t] : sets) {
    names.push_back(name);
    first.push_back(static_cast<std::int64_t>(total));
    rows.push_back(static_cast<std::int64_t>(t->rows()));
    total += t->rows();
  }
  H5Group pack = ordered_group(file, path, where);
  write_attribute(pack.get(), kPackAttribute, std::string(kPackVersion));
  H5Group varying = ordered_group(pack.get(), kPackAttributes, w);
  for (const AttributeValues& a : by_name(attrs, w)) {
    const AttributeValue& one = *a.values.front();
    const bool same = std::all_of(a.values.begin(), a.values.end(),
                                  [&](const AttributeValue* v) { return *v == one; });
    if (same)
      write_attribute(pack.get(), a.name, one);
    else
      write_whole(varying.get(), attribute_column(a), kPackChunkRows, w);
  }
  H5Group index = ordered_group(pack.get(), kPackIndex, w);
  write_whole(index.get(), Column("set", std::move(names)), kPackChunkRows, w);
  write_whole(index.get(), Column("first", std::move(first)), kPackChunkRows, w);
  write_whole(index.get(), Column("rows", std::move(rows)), kPackChunkRows, w);
  H5Group columns = ordered_group(pack.get(), kPackColumns, w);
  for (const auto& c : sets.front().second->columns()) {
    write_whole(columns.get(), concatenated(c.name(), c.type(), sets), kPackChunkRows, w);
  }
}

}  // namespace perfit::io::detail

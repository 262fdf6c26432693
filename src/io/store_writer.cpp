#include "perfit/io/store_writer.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>

#include "deflated_chunks.hpp"
#include "h5_attributes.hpp"
#include "h5_columns.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/file_seal.hpp"
#include "perfit/io/store_format.hpp"
#include "store_pack.hpp"

namespace perfit::io {

using data::Column;
using data::ColumnType;

void validate_set_path(const std::string& set) {
  // By hand, not std::regex: an Extra-P import checks 10^5 paths.
  std::size_t levels = 0;
  bool ok = !set.empty() && set.front() == '/' && set.back() != '/';
  for (std::size_t i = 0; ok && i < set.size(); ++i) {
    const char c = set[i];
    if (c == '/') {
      ok = i + 1 < set.size() && set[i + 1] != '/';
      ++levels;
    } else {
      ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' ||
           c == '-';
    }
  }
  if (!ok || levels < 2 || levels > 3) {
    throw ConfigError("set path '" + set +
                      "' is not of the form /<framework>/<model>[/<system>] (names of letters, "
                      "digits and . _ + -), e.g. /pytorch/resnet50");
  }
}

namespace {

H5Plist link_create_plist() {
  H5Plist lcpl(h5_check(H5Pcreate(H5P_LINK_CREATE), "link creation plist"));
  h5_check_status(H5Pset_create_intermediate_group(lcpl.get(), 1), "intermediate groups");
  return lcpl;
}

}  // namespace

StoreWriter::StoreWriter(std::string path, Seal seal) : path_(std::move(path)), seal_(seal) {
  silence_hdf5_errors();
  H5Plist fcpl(h5_check(H5Pcreate(H5P_FILE_CREATE), "file creation plist"));
  if (seal_ == Seal::yes) {
    h5_check_status(H5Pset_userblock(fcpl.get(), kSealBytes), "user block for the checksum");
  }
  // HDF5 1.10's file format: a small group keeps its links (and, create_group, its attributes)
  // in its own header instead of a B-tree and heaps of its own: an import of 10^4 Extra-P
  // call paths (25 rows each) 33.4 -> 22.6 MB and 1.9 -> 1.4 s. Readable by HDF5 >= 1.10
  // (Debian 12's h5py included).
  H5Plist fapl(h5_check(H5Pcreate(H5P_FILE_ACCESS), "file access plist"));
  h5_check_status(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V110, H5F_LIBVER_LATEST),
                  "file format bounds");
  const hid_t id = H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get());
  if (id < 0) {
    const std::string stack = hdf5_error_stack();
    throw IoError("cannot create '" + path_ + "': " + std::strerror(errno) + " (HDF5: " + stack +
                  ")");
  }
  file_ = H5Id(id);
}

void StoreWriter::copy_set(const StoreReader& src, const std::string& set) {
  H5Plist lcpl = link_create_plist();
  h5_check_status(H5Ocopy(src.id(), set.c_str(), file_.get(), set.c_str(), H5P_DEFAULT, lcpl.get()),
                  "copy set '" + set + "' from '" + src.path() + "' to '" + path_ + "'");
}

std::string StoreWriter::next_pack() {
  return std::string(kPackRoot) + "/" + std::to_string(packs_++);
}

void StoreWriter::copy_pack(const StoreReader& src, const std::string& pack) {
  H5Plist lcpl = link_create_plist();
  h5_check_status(
      H5Ocopy(src.id(), pack.c_str(), file_.get(), next_pack().c_str(), H5P_DEFAULT, lcpl.get()),
      "copy pack '" + pack + "' from '" + src.path() + "' to '" + path_ + "'");
}

void StoreWriter::write_sets(
    const std::vector<std::pair<std::string, const data::MeasurementTable*>>& sets) {
  std::map<std::string, std::vector<detail::NamedTable>> shapes;
  for (const auto& s : sets) {
    validate_set_path(s.first);
    shapes[detail::pack_signature(*s.second)].push_back(s);
  }
  for (auto& [signature, group] : shapes) {
    if (group.size() >= kPackMinSets) {
      detail::write_pack(file_.get(), next_pack(), std::move(group), "'" + path_ + "'");
    } else {
      for (const auto& [set, table] : group) write_set(set, *table);
    }
  }
}

SetWriter StoreWriter::create_set(const std::string& set, const std::vector<ColumnInfo>& columns,
                                  std::size_t rows, const data::Attributes& attributes) {
  validate_set_path(set);
  return create_group(set, columns, rows, attributes, true);
}

void StoreWriter::write_group(const std::string& path, const data::MeasurementTable& table) {
  std::vector<GroupColumn> cols;
  for (const auto& c : table.columns()) {
    GroupColumn g{c.name(), c.type(), 0};
    if (c.type() == ColumnType::string) {
      for (const auto& v : c.str()) g.width = std::max(g.width, v.size());
    }
    cols.push_back(std::move(g));
  }
  stream_group(path, cols, table.rows(), table.attributes()).write(0, table);
}

GroupWriter StoreWriter::stream_group(const std::string& path,
                                      const std::vector<GroupColumn>& columns, std::size_t rows,
                                      const data::Attributes& attributes) {
  return GroupWriter(create_group(path, {}, rows, attributes, false).release_group(), columns, rows,
                     "'" + path_ + "' group '" + path + "'");
}

void StoreWriter::write_root_attribute(const std::string& name, const data::AttributeValue& v) {
  H5Group root(h5_check(H5Gopen2(file_.get(), "/", H5P_DEFAULT), "open '" + path_ + "' root"));
  detail::write_attribute(root.get(), name, v);
}

SetWriter StoreWriter::create_group(const std::string& set, const std::vector<ColumnInfo>& columns,
                                    std::size_t rows, const data::Attributes& attributes,
                                    bool is_set) {
  const std::string where = "'" + path_ + "' group '" + set + "'";
  H5Plist lcpl = link_create_plist();
  // Track creation order so columns read back in the order they were written.
  H5Plist gcpl(h5_check(H5Pcreate(H5P_GROUP_CREATE), "group creation plist"));
  h5_check_status(
      H5Pset_link_creation_order(gcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
      "track creation order");
  // A set's attributes (about 10) in its own header, not in a B-tree and heap of their own.
  h5_check_status(H5Pset_attr_phase_change(gcpl.get(), 32, 24), "compact attributes");
  H5Group g(h5_check(H5Gcreate2(file_.get(), set.c_str(), lcpl.get(), gcpl.get(), H5P_DEFAULT),
                     "create " + where));
  if (is_set) detail::write_attribute(g.get(), kFormatAttribute, std::string(kFormatVersion));
  for (const auto& [k, v] : attributes) {
    // The checksum is the written rows', computed by SetWriter::finish, never copied.
    if (k != kFormatAttribute && k != "checksum") detail::write_attribute(g.get(), k, v);
  }
  return SetWriter(std::move(g).to_id(), columns, rows, where);
}

void StoreWriter::write_set(const std::string& set, const data::MeasurementTable& table) {
  std::vector<ColumnInfo> cols;
  for (const auto& c : table.columns()) cols.push_back({c.name(), c.type()});
  SetWriter w = create_set(set, cols, table.rows(), table.attributes());
  w.write(0, table);
  w.finish();
}

void SetWriter::finish() {
  std::vector<std::string> names;
  std::vector<ColumnType> types;
  for (const auto& c : columns_) {
    names.push_back(c.name);
    types.push_back(c.type);
  }
  detail::write_attribute(group_.get(), "checksum", checksum_.finish(names, types));
}

void StoreWriter::close() {
  h5_check_status(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "flush '" + path_ + "'");
  h5_check_status(H5Fclose(file_.release()), "close '" + path_ + "'");
  if (seal_ == Seal::yes) seal_file(path_);
}

SetWriter::SetWriter(H5Id group, std::vector<ColumnInfo> columns, std::size_t rows,
                     std::string where)
    : checksum_(columns.size()),
      group_(std::move(group)),
      columns_(std::move(columns)),
      rows_(rows),
      where_(std::move(where)),
      memo_(std::make_unique<detail::ChunkMemo>()) {
  for (const auto& c : columns_)
    datasets_.push_back(detail::create_column(group_.get(), c, rows_, kChunkRows, where_).to_id());
}

SetWriter::SetWriter(SetWriter&&) noexcept = default;
SetWriter& SetWriter::operator=(SetWriter&&) noexcept = default;
SetWriter::~SetWriter() = default;

void SetWriter::write(std::size_t offset, const data::MeasurementTable& chunk) {
  if (offset + chunk.rows() > rows_) {
    throw DataError(where_ + ": writing rows [" + std::to_string(offset) + ", " +
                    std::to_string(offset + chunk.rows()) + ") overruns the set's " +
                    std::to_string(rows_) + " rows");
  }
  if (chunk.rows() == 0) return;
  detail::DeflateBatch batch(memo_.get());  // every column's chunks deflated side by side
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    const Column& col = chunk.column(columns_[i].name);
    checksum_.add(i, col);
    detail::write_column(datasets_[i].get(), columns_[i].type, col, offset,
                         "write " + where_ + " dataset '" + columns_[i].name + "'", &batch);
  }
  batch.run();
}

}  // namespace perfit::io

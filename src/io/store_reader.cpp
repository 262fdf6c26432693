#include "perfit/io/store_reader.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <unordered_set>

#include "h5_attributes.hpp"
#include "h5_columns.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/io/file_seal.hpp"
#include "perfit/io/store_format.hpp"
#include "store_pack.hpp"

namespace perfit::io {

namespace fs = std::filesystem;
using data::Column;
using data::ColumnType;

namespace {

herr_t find_set_groups(hid_t root, const char* name, const H5L_info_t* info, void* data) {
  if (info->type != H5L_TYPE_HARD) return 0;
  hid_t obj = H5Oopen(root, name, H5P_DEFAULT);
  if (obj < 0) return 0;
  if (H5Iget_type(obj) == H5I_GROUP && H5Aexists(obj, kFormatAttribute) > 0) {
    static_cast<std::vector<std::string>*>(data)->push_back(std::string("/") + name);
  }
  H5Oclose(obj);
  return 0;
}

}  // namespace

namespace detail {

class CheckedDatasets {
 public:
  bool holds(const std::string& path) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return paths_.count(path) > 0;
  }
  void add(const std::string& path) {
    const std::lock_guard<std::mutex> lock(mutex_);
    paths_.insert(path);
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_set<std::string> paths_;
};

}  // namespace detail

StoreReader::StoreReader(std::string path)
    : path_(std::move(path)), checked_(std::make_shared<detail::CheckedDatasets>()) {
  silence_hdf5_errors();
  std::error_code ec;
  if (!fs::exists(path_, ec)) {
    throw IoError("store '" + path_ + "' does not exist. Create one with `perfit synth --out " +
                  path_ + "` or `perfit import FILE.csv --out " + path_ + " ...`");
  }
  if (fs::is_directory(path_, ec)) {
    throw IoError("store '" + path_ + "' is a directory, expected an HDF5 file");
  }
  verify_seal(path_, "store", kStoreCrcLimit);
  if (!std::ifstream(path_).good()) {
    throw IoError("store '" + path_ + "' cannot be read (permissions?)");
  }
  if (H5Fis_hdf5(path_.c_str()) <= 0) {
    hdf5_error_stack();
    throw DataError("'" + path_ +
                    "' is not an HDF5 file. perfit stores are HDF5 "
                    "(docs/hdf5-format.md); convert CSV with `perfit import`");
  }
  file_ = open_h5_read(path_).to_id();
  packs_ = std::make_shared<const detail::PackedSets>(file_.get(), path_);
  identity_ = file_identity(path_);
}

std::string StoreReader::where(const std::string& set) const {
  return "'" + path_ + "' set '" + set + "'";
}

std::vector<std::string> StoreReader::find_sets() const {
  std::vector<std::string> sets;
  h5_check_status(H5Lvisit(file_.get(), H5_INDEX_NAME, H5_ITER_INC, find_set_groups, &sets),
                  "walk '" + path_ + "'");
  std::sort(sets.begin(), sets.end());
  const std::vector<std::string> packed = packs_->names();
  if (sets.empty()) return packed;
  std::vector<std::string> all;
  all.reserve(sets.size() + packed.size());
  std::merge(sets.begin(), sets.end(), packed.begin(), packed.end(), std::back_inserter(all));
  return all;
}

std::vector<std::string> StoreReader::sets() const {
  std::vector<std::string> s = find_sets();
  if (s.empty()) {
    throw DataError("'" + path_ +
                    "' is an HDF5 file but holds no perfit measurement set (no "
                    "group with attribute '" +
                    std::string(kFormatAttribute) +
                    "'; see docs/hdf5-format.md). Create sets with `perfit import` or "
                    "`perfit synth`");
  }
  return s;
}

bool StoreReader::has_group(const std::string& name) const {
  return name.size() > 1 && name.front() == '/' && name.find('/', 1) == std::string::npos &&
         H5Lexists(file_.get(), name.c_str(), H5P_DEFAULT) > 0;
}

bool StoreReader::has_set(const std::string& set) const {
  // Link by link from the root instead of walking the file: a store may hold hundreds of sets.
  if (set.size() < 2 || set.front() != '/' || set.back() == '/' ||
      set.find("//") != std::string::npos) {
    return false;
  }
  if (packs_->find(set)) return true;
  for (std::size_t next = set.find('/', 1);; next = set.find('/', next + 1)) {
    const std::string prefix = set.substr(0, next);
    if (H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (next == std::string::npos) break;
  }
  H5L_info_t link;
  if (H5Lget_info(file_.get(), set.c_str(), &link, H5P_DEFAULT) < 0 || link.type != H5L_TYPE_HARD) {
    return false;
  }
  const hid_t obj = H5Oopen(file_.get(), set.c_str(), H5P_DEFAULT);
  if (obj < 0) return false;
  const bool is_set = H5Iget_type(obj) == H5I_GROUP && H5Aexists(obj, kFormatAttribute) > 0;
  H5Oclose(obj);
  return is_set;
}

std::size_t StoreReader::rows(const std::string& set) const {
  if (const auto hit = packs_->find(set)) return hit->pack->rows(hit->index);
  return info(set).rows;
}

std::vector<StoreReader::Pack> StoreReader::packs() const {
  std::vector<Pack> out;
  for (const auto& p : packs_->packs()) out.push_back({p.path(), p.sets()});
  return out;
}

std::string StoreReader::set_attribute(const std::string& set, const std::string& name) const {
  if (const auto hit = packs_->find(set)) {
    const auto v = hit->pack->attribute(hit->index, name);
    return v ? data::attribute_text(*v) : std::string();
  }
  if (!has_set(set)) throw DataError("'" + path_ + "' has no set '" + set + "'");
  H5Group g(h5_check(H5Gopen2(file_.get(), set.c_str(), H5P_DEFAULT), "open " + where(set)));
  const auto v = detail::read_attribute(g.get(), name, where(set));
  return v ? data::attribute_text(*v) : std::string();
}

std::vector<std::string> StoreReader::set_attributes(const std::vector<std::string>& sets,
                                                     const std::string& name) const {
  std::vector<std::string> out;
  out.reserve(sets.size());
  // Each pack's texts, read once; a text is moved out the first time its set is asked for, and
  // copied from where it went after that (a set asked for twice).
  struct Read {
    std::vector<std::string> texts;
    std::vector<std::size_t> went;  // its place in `out`, or npos
  };
  std::map<const detail::Pack*, Read> read;
  std::optional<detail::PackedSets::Hit> last;
  for (const auto& set : sets) {
    // Sets asked for in the store's order (a glob's) are most often the one after the last:
    // 10^6 searches by name were a tenth of a second of a batch's start.
    const std::optional<detail::PackedSets::Hit> hit =
        last ? packs_->find_after(*last, set) : packs_->find(set);
    last = hit;
    if (!hit) {
      out.push_back(set_attribute(set, name));
      continue;
    }
    auto it = read.find(hit->pack);
    if (it == read.end()) {
      Read r{hit->pack->attribute_texts(name), {}};
      r.went.assign(r.texts.size(), std::string::npos);
      it = read.emplace(hit->pack, std::move(r)).first;
    }
    std::size_t& went = it->second.went[hit->index];
    if (went == std::string::npos) {
      went = out.size();
      out.push_back(std::move(it->second.texts[hit->index]));
    } else {
      out.push_back(out[went]);
    }
  }
  return out;
}

SetInfo StoreReader::info_uncached(const std::string& set) const {
  if (!has_set(set)) {
    const auto s = find_sets();
    throw DataError("'" + path_ + "' has no set '" + set + "'; sets there: " + join_some(s));
  }
  if (const auto hit = packs_->find(set)) return hit->pack->info(hit->index);
  SetInfo info = describe(set);
  const std::string version = info.attributes.count(kFormatAttribute)
                                  ? data::attribute_text(info.attributes.at(kFormatAttribute))
                                  : "";
  if (version != kFormatVersion) {
    throw DataError(where(set) + " has " + kFormatAttribute + "='" + version + "', expected '" +
                    kFormatVersion + "'. It was written by another perfit version; re-import it");
  }
  if (info.columns.empty()) throw DataError(where(set) + " has no column datasets");
  return info;
}

SetInfo StoreReader::describe(const std::string& set) const {
  if (H5Lexists(file_.get(), set.c_str(), H5P_DEFAULT) <= 0) {
    hdf5_error_stack();
    throw DataError("'" + path_ + "' has no group '" + set + "'");
  }
  {  // another program's file may hold a dataset (or a link to nothing) where a group belongs
    const hid_t obj = H5Oopen(file_.get(), set.c_str(), H5P_DEFAULT);
    const bool group = obj >= 0 && H5Iget_type(obj) == H5I_GROUP;
    if (obj >= 0) {
      H5Oclose(obj);
    } else {
      hdf5_error_stack();
    }
    if (!group) {
      throw DataError(where(set) + (obj >= 0 ? " is a dataset" : " cannot be opened") +
                      ", not a group of 1-D column datasets");
    }
  }
  H5Group g(h5_check(H5Gopen2(file_.get(), set.c_str(), H5P_DEFAULT), "open " + where(set)));
  SetInfo info;
  info.path = set;
  info.attributes = detail::read_attributes(g.get(), where(set));
  bool first = true;
  for (const auto& name : detail::member_names(g.get())) {
    const std::string w = where(set) + " dataset '" + name + "'";
    H5L_info_t link;
    h5_check_status(H5Lget_info(g.get(), name.c_str(), &link, H5P_DEFAULT), "link " + w);
    if (link.type != H5L_TYPE_HARD) {
      // Never followed: a soft link may loop or dangle, an external one opens another file.
      throw DataError(where(set) + " member '" + name + "' is " +
                      (link.type == H5L_TYPE_SOFT       ? "a soft link"
                       : link.type == H5L_TYPE_EXTERNAL ? "an external link to another file"
                                                        : "a user-defined link") +
                      "; a set holds its columns itself: copy the dataset into the set");
    }
    H5O_type_t type = H5O_TYPE_UNKNOWN;
    {
      hid_t obj = h5_check(H5Oopen(g.get(), name.c_str(), H5P_DEFAULT), "open " + w);
      type = H5Iget_type(obj) == H5I_DATASET ? H5O_TYPE_DATASET : H5O_TYPE_GROUP;
      H5Oclose(obj);
    }
    if (type != H5O_TYPE_DATASET) {
      throw DataError(w + " is a group; a set holds only 1-D column datasets");
    }
    H5Dataset d(h5_check(H5Dopen2(g.get(), name.c_str(), H5P_DEFAULT), "open " + w));
    H5Dataspace sp(h5_check(H5Dget_space(d.get()), "space of " + w));
    if (H5Sget_simple_extent_ndims(sp.get()) != 1) {
      throw DataError(w + " has " + std::to_string(H5Sget_simple_extent_ndims(sp.get())) +
                      " dimensions, expected 1 (one dataset per column)");
    }
    hsize_t n = 0;
    H5Sget_simple_extent_dims(sp.get(), &n, nullptr);
    if (first) {
      info.rows = n;
      first = false;
    } else if (n != info.rows) {
      throw DataError(w + " has " + std::to_string(n) + " rows, but '" + info.columns.front().name +
                      "' has " + std::to_string(info.rows) +
                      "; all columns of a set must have the same length");
    }
    info.columns.push_back({name, detail::column_type_of(d.get(), w)});
  }
  return info;
}

data::MeasurementTable StoreReader::read_group(const std::string& path) const {
  const SetInfo si = describe(path);
  return load(si, si.columns, 0, si.rows);
}

data::MeasurementTable StoreReader::read_group(const std::string& path, RowRange range) const {
  const SetInfo si = describe(path);
  const std::size_t end = std::min(range.end, si.rows);
  if (range.begin > end) {
    throw DataError(where(path) + ": rows from " + std::to_string(range.begin) +
                    " asked, it holds " + std::to_string(si.rows));
  }
  return load(si, si.columns, range.begin, end);
}

data::Attributes StoreReader::root_attributes() const {
  H5Group root(h5_check(H5Gopen2(file_.get(), "/", H5P_DEFAULT), "open '" + path_ + "' root"));
  return detail::read_attributes(root.get(), "'" + path_ + "'");
}

data::MeasurementTable StoreReader::read(const std::string& set,
                                         const std::vector<std::string>& columns, RowRange range,
                                         bool as_double) const {
  const SetInfo si = info(set);
  if (range.begin > si.rows || range.begin > range.end) {
    throw DataError(where(set) + ": row range [" + std::to_string(range.begin) + ", " +
                    std::to_string(range.end) + ") is outside the set's " +
                    std::to_string(si.rows) + " rows");
  }
  const std::size_t end = std::min(range.end, si.rows);
  std::vector<ColumnInfo> wanted;
  if (columns.empty()) {
    wanted = si.columns;
  } else {
    for (const auto& name : columns) {
      auto it = std::find_if(si.columns.begin(), si.columns.end(),
                             [&](const ColumnInfo& c) { return c.name == name; });
      if (it == si.columns.end()) {
        std::vector<std::string> names;
        for (const auto& c : si.columns) names.push_back(c.name);
        throw DataError(where(set) + " has no column '" + name + "'; columns: " + join(names));
      }
      wanted.push_back(*it);
    }
  }
  if (as_double) {
    for (auto& c : wanted)
      if (c.type == data::ColumnType::int64) c.type = data::ColumnType::float64;
  }
  return load(si, wanted, range.begin, end);
}

data::MeasurementTable StoreReader::load(const SetInfo& si, const std::vector<ColumnInfo>& wanted,
                                         std::size_t begin, std::size_t end) const {
  if (const auto hit = packs_->find(si.path)) {
    data::MeasurementTable t = hit->pack->read(hit->index, wanted, begin, end);
    t.attributes() = si.attributes;
    return t;
  }
  H5Group g(
      h5_check(H5Gopen2(file_.get(), si.path.c_str(), H5P_DEFAULT), "open " + where(si.path)));
  std::vector<H5Dataset> datasets;
  double bytes = 0.0;
  for (const auto& ci : wanted) {
    const std::string w = where(si.path) + " dataset '" + ci.name + "'";
    datasets.emplace_back(h5_check(H5Dopen2(g.get(), ci.name.c_str(), H5P_DEFAULT), "open " + w));
    if (!checked_->holds(si.path + "/" + ci.name)) {
      detail::check_readable(datasets.back().get(), begin, end - begin, w);
      checked_->add(si.path + "/" + ci.name);
    }
    bytes += detail::row_bytes(datasets.back().get(), ci, w) * static_cast<double>(end - begin);
  }
  detail::check_fits_in_memory(bytes, end - begin, wanted.size(), where(si.path));
  data::MeasurementTable t;
  for (std::size_t k = 0; k < wanted.size(); ++k) {
    const std::string w = where(si.path) + " dataset '" + wanted[k].name + "'";
    t.add_column(detail::read_column(datasets[k].get(), wanted[k], begin, end - begin, w, true));
  }
  t.attributes() = si.attributes;
  return t;
}

}  // namespace perfit::io

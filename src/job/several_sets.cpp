#include "perfit/job/several_sets.hpp"

#include "perfit/core/error.hpp"
#include "perfit/data/checksum.hpp"
#include "perfit/io/set_glob.hpp"

namespace perfit::job {

namespace {

std::string attribute_or(const data::Attributes& a, const std::string& key,
                         const std::string& fallback) {
  const auto it = a.find(key);
  return it == a.end() ? fallback : data::attribute_text(it->second);
}

// Every set must read as the first does: the same target and unit, the same columns.
void check_like_first(const io::SetInfo& first, const io::SetInfo& other,
                      const std::string& where) {
  for (const auto& [key, fallback] :
       {std::pair<std::string, std::string>{"target", ""}, {"unit", "s"}}) {
    const std::string a = attribute_or(first.attributes, key, fallback),
                      b = attribute_or(other.attributes, key, fallback);
    if (a != b) {
      throw DataError(where + ": set '" + other.path + "' has " + key + " '" + b + "' where '" +
                      first.path + "' has '" + a + "'; a joint fit of several sets needs one " +
                      key + " (re-import them alike)");
    }
  }
  for (const auto& col : other.columns) {
    if (col.name == kSetColumn) {
      throw DataError(
          where + ": set '" + other.path + "' has a column named '" + kSetColumn +
          "', the name a joint fit of several sets gives each row's set; rename that column");
    }
  }
}

}  // namespace

SeveralSets read_several_sets(const io::StoreReader& store, const std::string& pattern) {
  const std::vector<std::string> paths = io::matching_sets(store, pattern);
  const std::string where = "'" + store.path() + "' --set '" + pattern + "'";
  SeveralSets out;
  out.rows = std::make_shared<data::MeasurementTable>();
  std::vector<std::string> names;
  for (const auto& path : paths) {
    const io::SetInfo info = store.info(path);
    if (out.sets == 0) out.info = info;
    check_like_first(out.info, info, where);
    std::vector<std::string> columns;
    for (const auto& col : out.info.columns) columns.push_back(col.name);
    data::MeasurementTable t =
        store.read(path, columns);  // a set without one of them: refused by name
    names.insert(names.end(), t.rows(), path);
    if (out.sets++ == 0)
      *out.rows = std::move(t);
    else
      out.rows->append(t);
  }
  out.rows->add_column(data::Column(kSetColumn, std::move(names)));
  out.rows->attributes() = out.info.attributes;
  out.info.path = pattern;
  out.info.rows = out.rows->rows();
  out.info.columns.push_back({kSetColumn, data::ColumnType::string});
  out.info.attributes["checksum"] = data::table_checksum(*out.rows);
  return out;
}

data::MeasurementTable only_columns(const data::MeasurementTable& t,
                                    const std::vector<std::string>& columns) {
  data::MeasurementTable out;
  for (const auto& c : columns) out.add_column(t.column(c));
  out.attributes() = t.attributes();
  return out;
}

}  // namespace perfit::job

#include "perfit/data/checksum.hpp"

#include <cstdio>
#include <cstring>

namespace perfit::data {

namespace {
std::uint64_t fnv(std::uint64_t h, const void* p, std::size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}
}  // namespace

void SetChecksum::add(std::size_t column, const Column& c) {
  std::uint64_t& h = column_hash_[column];
  switch (c.type()) {
    case ColumnType::float64:
      h = fnv(h, c.f64().data(), c.f64().size() * sizeof(double));
      break;
    case ColumnType::int64:
      h = fnv(h, c.i64().data(), c.i64().size() * sizeof(std::int64_t));
      break;
    case ColumnType::string:
      for (const auto& s : c.str()) h = fnv(h, s.c_str(), s.size() + 1);
      break;
  }
}

std::string SetChecksum::finish(const std::vector<std::string>& names,
                                const std::vector<ColumnType>& types) const {
  std::uint64_t h = kOffset;
  for (std::size_t i = 0; i < names.size(); ++i) {
    h = fnv(h, names[i].c_str(), names[i].size() + 1);
    const int type = static_cast<int>(types[i]);
    h = fnv(h, &type, sizeof type);
    h = fnv(h, &column_hash_[i], sizeof column_hash_[i]);
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string table_checksum(const MeasurementTable& t) {
  SetChecksum s(t.cols());
  std::vector<std::string> names;
  std::vector<ColumnType> types;
  for (std::size_t i = 0; i < t.cols(); ++i) {
    s.add(i, t.columns()[i]);
    names.push_back(t.columns()[i].name());
    types.push_back(t.columns()[i].type());
  }
  return s.finish(names, types);
}

}  // namespace perfit::data

#include "perfit/data/checksum.hpp"

#include <cstdio>
#include <cstring>

namespace perfit::data {

namespace {
struct Fnv {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  void add(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ULL;
  }
};
}  // namespace

std::string table_checksum(const MeasurementTable& t) {
  Fnv f;
  for (const auto& c : t.columns()) {
    f.add(c.name().data(), c.name().size() + 1);
    const int type = static_cast<int>(c.type());
    f.add(&type, sizeof type);
    switch (c.type()) {
      case ColumnType::float64: f.add(c.f64().data(), c.f64().size() * sizeof(double)); break;
      case ColumnType::int64: f.add(c.i64().data(), c.i64().size() * sizeof(std::int64_t)); break;
      case ColumnType::string:
        for (const auto& s : c.str()) f.add(s.c_str(), s.size() + 1);
        break;
    }
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(f.h));
  return buf;
}

}  // namespace perfit::data
